"""The JSON documents cuwheel prints, as TypedDicts (schema 1).

Each class mirrors a table of the documentation: ``docs/json-schema.md``
(``list``, ``show``), ``docs/check.md`` (``check``) and ``docs/diff.md``
(``diff``). The tests hold the three together: every key the binary prints
for the project's fixtures is declared here, and every field declared here
is named in its document. Fields a document calls optional ("absent
when ...", "only when ...") are in the ``total=False`` half of a class.
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, TypedDict

Severity = Literal["error", "warning", "note"]


class Problem(TypedDict):
    """A part that could not be read (``errors``, ``summary.unreadable``)."""

    where: str
    message: str


# ---------------------------------------------------------------------------
# list (docs/json-schema.md, "list: OBJECT" and ENTRY)


class _ListEntryBase(TypedDict):
    kind: str
    arch: str
    sm: int
    suffix: str
    compression: str
    stored_size: int
    size: int
    offset: int
    section: str
    origin: str
    via_wrapper: bool
    debug: bool


class ListEntry(_ListEntryBase, total=False):
    ptx_isa: str
    cubin_abi: int
    cubin_arch: str
    identifier: str
    payload_error: str


class _ListObjectBase(TypedDict):
    path: str
    containers: int
    entries: List[ListEntry]


class ListObject(_ListObjectBase, total=False):
    member: str
    archive_member: str
    distribution: str


class _InputBase(TypedDict):
    path: str
    kind: str
    errors: List[Problem]


class ListInput(_InputBase):
    objects: List[ListObject]


class ListReport(TypedDict):
    schema: int
    tool: str
    command: str
    inputs: List[ListInput]


# ---------------------------------------------------------------------------
# show (docs/json-schema.md, "show: OBJECT", NEEDED, SYMBOL-NEED, DEVICE, WHEEL)


class Provider(TypedDict):
    distribution: str
    directory: str
    toolkit_extra: str


# "class" is a Python keyword, so the required half is spelled the
# functional way; read it as needed["class"].
_NeededBase = TypedDict("_NeededBase", {"soname": str, "class": str})


class Needed(_NeededBase, total=False):
    path: str
    component: str
    grafted_from: str
    cuda_majors: List[int]
    providers: Dict[str, Provider]


class CudaRuntime(TypedDict, total=False):
    kind: str
    soname: str
    major: int
    evidence: str


class SymbolNeed(TypedDict):
    symbol: str
    version: str
    file: str
    first_release: Optional[str]


class PtxArch(TypedDict):
    arch: str
    isa: str


class GpuCode(TypedDict):
    gpu: str
    code: str


class RunsOn(TypedDict):
    native: List[GpuCode]
    jit: List[GpuCode]
    none: List[str]


class DataSection(TypedDict):
    section: str
    containers: int


class _DeviceCodeBase(TypedDict):
    entries: int
    sass: List[str]
    ptx: List[PtxArch]
    ltoir: List[str]
    compression: List[str]
    kernels: int
    kernels_complete: bool
    stored_bytes: int


class DeviceCode(_DeviceCodeBase, total=False):
    runs_on: RunsOn
    data_sections: List[DataSection]


class _ShowObjectBase(TypedDict):
    path: str
    soname: Optional[str]
    needed: List[Needed]
    rpath: List[str]
    runpath: List[str]
    cuda_runtime: CudaRuntime
    device_code: Optional[DeviceCode]
    warnings: List[str]


class ShowObject(_ShowObjectBase, total=False):
    member: str
    archive_member: str
    distribution: str
    elf_type: str
    cuda_symbol_needs: List[SymbolNeed]


class _WheelInfoBase(TypedDict):
    filename: str
    name: str
    version: str
    metadata_version: str
    filename_tags: List[str]
    wheel_tags: List[str]
    requires_dist: List[str]
    provides_extra: List[str]


class WheelInfo(_WheelInfoBase, total=False):
    requires_python: str


class _ShowInputBase(_InputBase):
    objects: List[ShowObject]


class ShowInput(_ShowInputBase, total=False):
    wheel: WheelInfo


class ShowReport(TypedDict):
    schema: int
    tool: str
    command: str
    inputs: List[ShowInput]


# ---------------------------------------------------------------------------
# check (docs/check.md, "JSON (--format json), schema 1")


class _FindingBase(TypedDict):
    rule: str
    code: str
    severity: Severity
    path: str
    member: str
    location: str
    message: str
    hint: str


class Finding(_FindingBase, total=False):
    group: int
    offset: int
    line: int
    index: int


class RuleCount(TypedDict):
    rule: str
    code: str
    severity: Severity
    count: int


class _CheckSummaryBase(TypedDict):
    inputs: int
    errors: int
    warnings: int
    notes: int
    unreadable: List[Problem]
    read_warnings: List[Problem]
    policy: str


class CheckSummary(_CheckSummaryBase, total=False):
    baselined: int
    statistics: List[RuleCount]


class CheckReport(TypedDict):
    schema: int
    tool: str
    command: str
    findings: List[Finding]
    summary: CheckSummary


# ---------------------------------------------------------------------------
# diff (docs/diff.md, "JSON (--format json), schema 1")


class WheelSize(TypedDict):
    path: str
    size: int
    installed_size: int


class Change(TypedDict):
    size: int
    installed_size: int
    unchanged_members: int


class MemberSize(TypedDict):
    compressed_size: int
    size: int


class _MemberChangeBase(TypedDict):
    name: str
    status: str
    old: MemberSize
    new: MemberSize
    compressed_delta: int
    size_delta: int


class MemberChange(_MemberChangeBase, total=False):
    old_name: str


class Duplicate(TypedDict):
    wheel: str
    path: str
    member: str
    copies: int


class SearchPath(TypedDict):
    tag: str
    entries: List[str]


class LibraryChange(TypedDict, total=False):
    member: str
    status: str
    sass_added: List[str]
    sass_removed: List[str]
    ptx_added: List[str]
    ptx_removed: List[str]
    old_device_code_bytes: int
    new_device_code_bytes: int
    needed_added: List[str]
    needed_removed: List[str]
    old_search_path: SearchPath
    new_search_path: SearchPath


class Limit(TypedDict):
    flag: str
    limit: str
    measure: str
    old: int
    new: int
    exceeded: bool


class _DiffReportBase(TypedDict):
    schema: int
    tool: str
    command: str
    old: WheelSize
    new: WheelSize
    change: Change
    members: List[MemberChange]
    duplicates: List[Duplicate]
    libraries: List[LibraryChange]
    limits: List[Limit]


class DiffReport(_DiffReportBase, total=False):
    unreadable: List[Problem]
