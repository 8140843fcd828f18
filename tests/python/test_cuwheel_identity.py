"""Unit tests for python/cuwheel_identity.py (python3 -m unittest).

Run from the repository root:
    python3 -m unittest discover -s tests/python -t tests/python
"""

import json
import os
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "python"))

import cuwheel_identity as ci  # noqa: E402

HELPER = Path(ci.__file__).resolve()


def write(path, text, mode=0o644):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)
    return path


class ParseTest(unittest.TestCase):
    def test_nvcc_banner(self):
        banner = ("nvcc: NVIDIA (R) Cuda compiler driver\n"
                  "Cuda compilation tools, release 13.0, V13.0.88\n"
                  "Build cuda_13.0.r13.0/compiler.36424714_0\n")
        self.assertEqual(ci.parse_nvcc_version(banner), (13, 0))
        self.assertEqual(ci.parse_nvcc_version("release 12.9, V12.9.86"), (12, 9))

    def test_nvcc_banner_without_release(self):
        with self.assertRaisesRegex(ci.IdentityError, r"no 'release M.N'.*gcc \(Debian"):
            ci.parse_nvcc_version("gcc (Debian 12.2.0-14) 12.2.0\n")
        for bad in ("release 13", "release 0.5", "", "release 0013.0", "release 13.123"):
            with self.assertRaises(ci.IdentityError):
                ci.parse_nvcc_version(bad)

    def test_headers(self):
        self.assertEqual(ci.parse_version_header("#define CUDA_VERSION_X 1\n#define CUDA_VERSION 13000\n",
                                                 "CUDA_VERSION"), (13, 0))
        self.assertEqual(ci.parse_version_header("#  define CUDART_VERSION\t12090\n", "CUDART_VERSION"), (12, 9))
        with self.assertRaisesRegex(ci.IdentityError, "no '#define CUDA_VERSION' line"):
            ci.parse_version_header("#define CUDART_VERSION 12090\n", "CUDA_VERSION")
        with self.assertRaisesRegex(ci.IdentityError, r"major\*1000 \+ minor\*10"):
            ci.parse_version_header("#define CUDA_VERSION 13001\n", "CUDA_VERSION")


class DetectTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def test_fake_nvcc_in_prefix(self):
        write(self.dir / "tk/bin/nvcc", "#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n", 0o755)
        major, minor, source = ci.detect_cuda_version(self.dir / "tk", env={})
        self.assertEqual((major, minor), (12, 8))
        self.assertEqual(source, str(self.dir / "tk/bin/nvcc") + " --version")

    def test_headers_only_prefix_from_cuda_home(self):
        write(self.dir / "tk/include/cuda_runtime_api.h", "#define CUDART_VERSION 12090\n")
        self.assertEqual(ci.detect_cuda_version(env={"CUDA_HOME": str(self.dir / "tk")})[:2], (12, 9))
        write(self.dir / "tk/include/cuda.h", "#define CUDA_VERSION 13010\n")
        self.assertEqual(ci.detect_cuda_version(env={"CUDA_HOME": str(self.dir / "tk")})[:2], (13, 1))

    def test_named_prefix_without_toolkit_is_an_error(self):
        write(self.dir / "path/nvcc", "#!/bin/sh\necho 'release 13.0'\n", 0o755)
        env = {"CUDA_PATH": str(self.dir / "empty"), "PATH": str(self.dir / "path")}
        with self.assertRaisesRegex(ci.IdentityError, "CUDA_PATH .*empty: no CUDA toolkit there"):
            ci.detect_cuda_version(env=env)
        del env["CUDA_PATH"]
        major, _, source = ci.detect_cuda_version(env=env)
        self.assertEqual(major, 13)
        self.assertTrue(source.endswith("/nvcc --version (PATH)"))

    def test_failing_and_hanging_nvcc(self):
        write(self.dir / "bad/bin/nvcc", "#!/bin/sh\necho 'nvcc fatal : broken' >&2\nexit 3\n", 0o755)
        with self.assertRaisesRegex(ci.IdentityError, "exited with status 3: nvcc fatal : broken"):
            ci.detect_cuda_version(self.dir / "bad", env={})
        write(self.dir / "hang/bin/nvcc", "#!/bin/sh\nexec sleep 30\n", 0o755)
        with self.assertRaisesRegex(ci.IdentityError, "no answer after 200 ms"):
            ci.detect_cuda_version(self.dir / "hang", env={}, timeout=0.2)

    def test_nothing_found(self):
        with self.assertRaisesRegex(ci.IdentityError, "no CUDA toolkit found"):
            ci.detect_cuda_version(env={"PATH": "/nonexistent-a:/nonexistent-b"})


class IdentityTest(unittest.TestCase):
    def test_canonical(self):
        self.assertEqual(ci.build_identity(13, ["debug", "coverage"]), "cu13-coverage-debug")
        self.assertEqual(ci.build_identity(13, ["Coverage", "debug", "debug"]), "cu13-coverage-debug")
        self.assertEqual(ci.build_identity(12), "cu12")
        self.assertEqual(ci.build_identity(13, ["san=asan", "debug", "opt=O2"]), "cu13-debug-opt=O2-san=asan")
        self.assertEqual(ci.build_identity(13, ["a=x", "a1"]), "cu13-a1-a=x")  # bytewise: '1' < '='

    def test_bad_flags(self):
        for bad in ("", "1debug", "de-bug", "debug=", "=x", "cu12", "opt=a-b", "opt=a/b", "a b"):
            with self.assertRaisesRegex(ci.IdentityError, "flag '", msg=bad):
                ci.build_identity(13, [bad])
        with self.assertRaisesRegex(ci.IdentityError, "flag 'san' given twice, as 'san=asan' and 'san=ubsan'"):
            ci.build_identity(13, ["san=asan", "san=ubsan"])
        with self.assertRaisesRegex(ci.IdentityError, "not the string"):
            ci.build_identity(13, "debug")
        for major in (0, 1000, True, "13"):
            with self.assertRaises(ci.IdentityError):
                ci.build_identity(major)

    def test_parse(self):
        for s in ("cu12", "cu13-debug", "cu13-coverage-debug", "cu13-a1-a=x-opt=O2"):
            ci.parse_identity(s)
        for s in ("", "cu", "cu013", "cuda13", "cu13-", "cu13--debug", "cu13-debug-coverage", "cu13-Debug",
                  "cu13-debug-debug", "13", "cu13 debug"):
            with self.assertRaises(ci.IdentityError, msg=s):
                ci.parse_identity(s)

    def test_generated_dir(self):
        self.assertEqual(ci.generated_dir("build/cython", "cu13-debug"), "build/cython/cu13-debug")
        self.assertEqual(ci.generated_dir("build/cython//", "cu13"), "build/cython/cu13")
        self.assertEqual(ci.generated_dir(Path("build") / "gen", "cu12"), "build/gen/cu12")
        self.assertEqual(ci.generated_dir("", "cu12"), "cu12")


class StampTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.stamp = self.dir / "build" / ".build-identity"

    def tearDown(self):
        self.tmp.cleanup()

    def test_missing_means_rebuild(self):
        state, recorded, message = ci.check_stamp(self.stamp, "cu13")
        self.assertEqual((state, recorded), ("missing", None))
        self.assertIn("configuration is cu13: rebuild", message)
        self.assertTrue(ci.needs_rebuild(self.stamp, "cu13"))

    def test_round_trip(self):
        ci.write_stamp(self.stamp, "cu12")
        self.assertEqual(self.stamp.read_text(), "cu12\n")
        self.assertEqual(stat.S_IMODE(self.stamp.stat().st_mode), 0o644)
        self.assertEqual(sorted(p.name for p in self.stamp.parent.iterdir()), [".build-identity"])
        self.assertFalse(ci.needs_rebuild(self.stamp, "cu12"))
        state, recorded, message = ci.check_stamp(self.stamp, "cu13")
        self.assertEqual((state, recorded), ("differs", "cu12"))
        self.assertEqual(message, "stamp says cu12, configuration is cu13: rebuild")
        ci.write_stamp(self.stamp, "cu13")
        self.assertFalse(ci.needs_rebuild(self.stamp, "cu13"))

    def test_malformed_means_rebuild(self):
        write(self.stamp, "13\n")
        self.assertEqual(ci.check_stamp(self.stamp, "cu13")[0], "malformed")
        write(self.stamp, "cu13\0x")
        self.assertEqual(ci.check_stamp(self.stamp, "cu13")[0], "malformed")

    def test_malformed_reasons_are_the_binarys(self):
        cases = [
            (b"cu13\ncu12", "'cu13\\x0acu12' is not a build identity: it has more than one line (a line break at "
                            "offset 4; a stamp holds one identity on one line)"),
            (b"cu13\0-debug", "'cu13\\x00-debug' is not a build identity: it holds a NUL byte at offset 4"),
            (b"cu13x", "'cu13x' is not a build identity: expected '-' at offset 4"),
            (b"cu0", "'cu0' is not a build identity: the CUDA major has a leading zero"),
        ]
        for data, reason in cases:
            self.stamp.parent.mkdir(parents=True, exist_ok=True)
            self.stamp.write_bytes(data)
            state, _, message = ci.check_stamp(self.stamp, "cu13")
            self.assertEqual(state, "malformed")
            self.assertEqual(message, "%s: %s; configuration is cu13: rebuild" % (self.stamp, reason))

    def test_messages_escape_from_bytes(self):
        # ESC, VT, FF, DEL, a raw C1 byte (invalid UTF-8) and U+0085 (C1 as UTF-8).
        self.stamp.parent.mkdir(parents=True, exist_ok=True)
        self.stamp.write_bytes(b"cu13-debug\x1b[31m\x0b\x0c\x7f\x85\xc2\x85")
        state, recorded, message = ci.check_stamp(self.stamp, "cu13")
        self.assertEqual(state, "malformed")
        self.assertEqual(recorded, "cu13-debug\\x1b[31m\\x0b\\x0c\\x7f\\x85\\xc2\\x85")
        self.assertIn("flag 'debug\\x1b[31m\\x0b\\x0c\\x7f\\x85\\xc2\\x85'", message)
        self.assertFalse(any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in message), message)
        self.assertEqual(ci._printable("caf\u00e9"), "caf\u00e9")  # printable UTF-8 is kept

    def test_white_space_around_the_stamp_is_ignored(self):
        self.stamp.parent.mkdir(parents=True, exist_ok=True)
        for data in (b" cu13\n", b"\t cu13 \r\n", b"\ncu13"):
            self.stamp.write_bytes(data)
            self.assertEqual(ci.check_stamp(self.stamp, "cu13")[0], "matches", data)

    def test_unreadable_is_an_error(self):
        self.stamp.mkdir(parents=True)
        with self.assertRaisesRegex(ci.IdentityError, "not a regular file"):
            ci.check_stamp(self.stamp, "cu13")
        os.mkfifo(self.dir / "fifo")  # must not block
        with self.assertRaisesRegex(ci.IdentityError, "not a regular file"):
            ci.check_stamp(self.dir / "fifo", "cu13")
        write(self.dir / "big", "c" * 8192)
        with self.assertRaisesRegex(ci.IdentityError, "larger than 4096 bytes"):
            ci.check_stamp(self.dir / "big", "cu13")

    def test_write_refuses_non_identity(self):
        with self.assertRaises(ci.IdentityError):
            ci.write_stamp(self.stamp, "cu13-Debug")
        self.assertFalse(self.stamp.exists())


class ScriptTest(unittest.TestCase):
    def run_helper(self, *args):
        return subprocess.run([sys.executable, str(HELPER), *args], capture_output=True, text=True, check=False)

    def test_show_check_stamp(self):
        with tempfile.TemporaryDirectory() as d:
            stamp = os.path.join(d, ".build-identity")
            r = self.run_helper("show", "--cuda-major", "13", "--flag", "debug", "--format", "json",
                                "--generated-root", "build/cython")
            self.assertEqual(r.returncode, 0, r.stderr)
            doc = json.loads(r.stdout)
            self.assertEqual((doc["schema"], doc["identity"], doc["generated_dir"]),
                             (1, "cu13-debug", "build/cython/cu13-debug"))
            r = self.run_helper("check", "--cuda-major", "13", "--stamp", stamp)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(self.run_helper("stamp", "--cuda-major", "12", "--stamp", stamp).returncode, 0)
            r = self.run_helper("check", "--cuda-major", "13", "--stamp", stamp)
            self.assertEqual(r.returncode, 1)
            self.assertEqual(r.stdout, "stamp says cu12, configuration is cu13: rebuild\n  CUDA major 12 -> 13\n")
            r = self.run_helper("check", "--cuda-major", "13", "--flag", "debug", "--stamp", stamp, "--format", "json")
            doc = json.loads(r.stdout)
            # The keys of cuwheel identity check --format json (docs/identity.md).
            self.assertEqual((doc["cuda_major"], doc["components"], doc["toolkit"], doc["changes"]),
                             (13, ["debug"], None, ["CUDA major 12 -> 13", "added debug"]))
            self.assertEqual(self.run_helper("check", "--cuda-major", "12", "--stamp", stamp).returncode, 0)
            r = self.run_helper("show", "--cuda-major", "13", "--flag", "bad-flag")
            self.assertEqual(r.returncode, 2)
            self.assertIn("flag 'bad-flag'", r.stderr)


if __name__ == "__main__":
    unittest.main()
