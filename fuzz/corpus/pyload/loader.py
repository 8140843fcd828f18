# A package loader in the style RAPIDS uses (written for this corpus).
import ctypes, os

def load():
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
        load_nvidia_dynamic_lib("nvJitLink")
        load_nvidia_dynamic_lib('nvrtc')
    except ModuleNotFoundError:
        pass
    import nvidia.libnvcomp
    nvidia.libnvcomp.load_library()
    return ctypes.CDLL(os.path.join(os.path.dirname(__file__), "lib64", "libpkg.so"), ctypes.RTLD_LOCAL)
