# CuwheelIdentity.cmake: build identity for CUDA projects, in plain CMake.
#
# Keeps generated sources and artifacts of one CUDA configuration apart from
# another's in one build tree (cuda-python PR #2472: Cython does not hash
# compile_time_env, setuptools compares mtimes; both reuse artifacts made
# for another CUDA major). Needs no cuwheel binary, and produces exactly the
# identity `cuwheel identity show` and python/cuwheel_identity.py produce:
#
#   identity  = "cu" MAJOR *( "-" component )      e.g. cu13-coverage-debug
#   component = NAME / NAME "=" VALUE
#   NAME      = [a-z][a-z0-9_]*   (lowercased; not "cu" followed by digits)
#   VALUE     = [A-Za-z0-9._]+
#   components deduplicated and sorted as byte strings (list(SORT), STRING)
#
# Functions:
#
#   cuwheel_build_identity(<out-var>
#       [CUDA_MAJOR <n>] [TOOLKIT <prefix>] [FLAGS <flag>...]
#       [GENERATED_ROOT <dir> GENERATED_DIR_VAR <var>])
#     Sets <out-var> to the identity. The CUDA major is, in order: CUDA_MAJOR;
#     TOOLKIT's bin/nvcc --version, include/cuda.h CUDA_VERSION or
#     include/cuda_runtime_api.h CUDART_VERSION; CMAKE_CUDA_COMPILER_VERSION
#     (when the CUDA language is enabled); CUDAToolkit_VERSION_MAJOR (after
#     find_package(CUDAToolkit)); $ENV{CUDA_HOME}, then $ENV{CUDA_PATH} as
#     TOOLKIT; nvcc on PATH. cuda.h's macros are major*1000 + minor*10; nvcc
#     prints "Cuda compilation tools, release 13.0, V13.0.88".
#     With GENERATED_ROOT, <var> is set to <dir>/<identity>.
#
#   cuwheel_identity_check(STAMP <file> IDENTITY <id> RESULT_VAR <var>
#       [MESSAGE_VAR <var>])
#     <var> is TRUE when a rebuild is needed: the stamp is missing, malformed
#     or records another identity. MESSAGE_VAR receives e.g. "stamp says cu12,
#     configuration is cu13: rebuild".
#
#   cuwheel_identity_track(IDENTITY <id> STAMP <file> TARGETS <tgt>...)
#     Forces a rebuild when the identity changes: writes
#     ${CMAKE_BINARY_DIR}/cuwheel-identity/trigger (content: the identity,
#     rewritten when it differs or the stamp says rebuild, so its mtime
#     moves) and makes every source of the targets depend on it
#     (OBJECT_DEPENDS) and their link too (LINK_DEPENDS). Then adds the
#     target `cuwheel_identity_stamp` (ALL) whose rule depends on the
#     targets' files and the trigger, and writes the stamp atomically only
#     after they all built successfully.
#
#   cmake -DCUWHEEL_IDENTITY_MODE=show [-DCUDA_MAJOR=N|-DTOOLKIT=P] [-DFLAGS="a;b"]
#         [-DGENERATED_ROOT=dir] -P CuwheelIdentity.cmake
#     Script mode: prints the identity (or the keyed folder with
#     GENERATED_ROOT). MODE=stamp with -DSTAMP=file -DIDENTITY=id writes the
#     stamp atomically (this is what the stamp target runs).

include_guard(GLOBAL)

set(_CUWHEEL_IDENTITY_MODULE "${CMAKE_CURRENT_LIST_FILE}")

# Sets <out_major> from a toolkit prefix; FATAL_ERROR when there is none.
function(_cuwheel_identity_from_prefix prefix named_by out_major)
  string(REGEX REPLACE "/+$" "" base "${prefix}")
  if(base STREQUAL "")
    set(base "/")
  endif()
  set(nvcc "${base}/bin/nvcc")
  if(EXISTS "${nvcc}" AND NOT IS_DIRECTORY "${nvcc}")
    _cuwheel_identity_from_nvcc("${nvcc}" major)
  elseif(EXISTS "${base}/include/cuda.h")
    _cuwheel_identity_from_header("${base}/include/cuda.h" CUDA_VERSION major)
  elseif(EXISTS "${base}/include/cuda_runtime_api.h")
    _cuwheel_identity_from_header("${base}/include/cuda_runtime_api.h" CUDART_VERSION major)
  else()
    message(FATAL_ERROR "cuwheel identity: ${named_by} ${prefix}: no CUDA toolkit there "
                        "(looked for bin/nvcc, include/cuda.h, include/cuda_runtime_api.h)")
  endif()
  set(${out_major} ${major} PARENT_SCOPE)
endfunction()

function(_cuwheel_identity_from_nvcc nvcc out_major)
  execute_process(COMMAND "${nvcc}" --version OUTPUT_VARIABLE out ERROR_VARIABLE out
                  RESULT_VARIABLE rc TIMEOUT 30)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cuwheel identity: ${nvcc} --version failed (${rc}): ${out}")
  endif()
  string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" m "${out}")
  if(NOT m OR CMAKE_MATCH_1 LESS 1)
    message(FATAL_ERROR "cuwheel identity: ${nvcc} --version: no 'release M.N' in the nvcc banner")
  endif()
  set(${out_major} ${CMAKE_MATCH_1} PARENT_SCOPE)
endfunction()

function(_cuwheel_identity_from_header path macro out_major)
  file(STRINGS "${path}" lines REGEX "^[ \t]*#[ \t]*define[ \t]+${macro}[ \t]")
  list(LENGTH lines n)
  if(n EQUAL 0)
    message(FATAL_ERROR "cuwheel identity: ${path}: no '#define ${macro}' line")
  endif()
  list(GET lines 0 line)
  if(NOT line MATCHES "define[ \t]+${macro}[ \t]+([0-9]+)")
    message(FATAL_ERROR "cuwheel identity: ${path}: #define ${macro}: value is not a decimal number")
  endif()
  set(value ${CMAKE_MATCH_1})
  math(EXPR major "${value} / 1000")
  math(EXPR rest "${value} % 10")
  if(major LESS 1 OR NOT rest EQUAL 0)
    message(FATAL_ERROR "cuwheel identity: ${path}: #define ${macro} ${value}: not of the form major*1000 + minor*10")
  endif()
  set(${out_major} ${major} PARENT_SCOPE)
endfunction()

# Canonical components from FLAGS (validated like the C++ and Python code).
function(_cuwheel_identity_components out)
  set(names)
  set(comps)
  foreach(flag IN LISTS ARGN)
    string(FIND "${flag}" "=" eq)
    if(eq EQUAL -1)
      set(name "${flag}")
      set(has_value FALSE)
      set(value "")
    else()
      string(SUBSTRING "${flag}" 0 ${eq} name)
      math(EXPR vstart "${eq} + 1")
      string(SUBSTRING "${flag}" ${vstart} -1 value)
      set(has_value TRUE)
    endif()
    string(TOLOWER "${name}" name)
    if(NOT name MATCHES "^[a-z][a-z0-9_]*$")
      message(FATAL_ERROR "cuwheel identity: flag '${flag}': a name starts with a-z and has only a-z, 0-9 and '_'")
    endif()
    if(name MATCHES "^cu[0-9]+$")
      message(FATAL_ERROR "cuwheel identity: flag '${flag}': 'cu' followed by digits is reserved for the CUDA major")
    endif()
    if(has_value AND NOT value MATCHES "^[A-Za-z0-9._]+$")
      message(FATAL_ERROR "cuwheel identity: flag '${flag}': a value has only A-Z, a-z, 0-9, '.' and '_'")
    endif()
    if(has_value)
      set(comp "${name}=${value}")
    else()
      set(comp "${name}")
    endif()
    list(FIND names "${name}" at)
    if(at EQUAL -1)
      list(APPEND names "${name}")
      list(APPEND comps "${comp}")
    else()
      list(GET comps ${at} prev)
      if(NOT prev STREQUAL comp)
        message(FATAL_ERROR "cuwheel identity: flag '${name}' given twice, as '${prev}' and '${comp}'")
      endif()
    endif()
  endforeach()
  list(SORT comps COMPARE STRING CASE SENSITIVE ORDER ASCENDING)
  set(${out} "${comps}" PARENT_SCOPE)
endfunction()

function(cuwheel_build_identity out_var)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "CUDA_MAJOR;TOOLKIT;GENERATED_ROOT;GENERATED_DIR_VAR" "FLAGS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cuwheel_build_identity: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(DEFINED ARG_CUDA_MAJOR AND NOT ARG_CUDA_MAJOR STREQUAL "")
    set(major "${ARG_CUDA_MAJOR}")
  elseif(ARG_TOOLKIT)
    _cuwheel_identity_from_prefix("${ARG_TOOLKIT}" toolkit major)
  elseif(CMAKE_CUDA_COMPILER_VERSION MATCHES "^([0-9]+)\\.")
    set(major "${CMAKE_MATCH_1}")
  elseif(CUDAToolkit_VERSION_MAJOR)
    set(major "${CUDAToolkit_VERSION_MAJOR}")
  elseif(NOT "$ENV{CUDA_HOME}" STREQUAL "")
    _cuwheel_identity_from_prefix("$ENV{CUDA_HOME}" CUDA_HOME major)
  elseif(NOT "$ENV{CUDA_PATH}" STREQUAL "")
    _cuwheel_identity_from_prefix("$ENV{CUDA_PATH}" CUDA_PATH major)
  else()
    find_program(_cuwheel_nvcc nvcc NO_CACHE)
    if(NOT _cuwheel_nvcc)
      message(FATAL_ERROR "cuwheel identity: no CUDA toolkit found: TOOLKIT, CUDA_HOME and CUDA_PATH are unset "
                          "and no nvcc is on PATH (give TOOLKIT or CUDA_MAJOR)")
    endif()
    _cuwheel_identity_from_nvcc("${_cuwheel_nvcc}" major)
  endif()
  if(NOT major MATCHES "^[1-9][0-9]?[0-9]?$")
    message(FATAL_ERROR "cuwheel identity: CUDA major '${major}' is out of range 1..999")
  endif()
  _cuwheel_identity_components(comps ${ARG_FLAGS})
  set(identity "cu${major}")
  foreach(c IN LISTS comps)
    string(APPEND identity "-${c}")
  endforeach()
  set(${out_var} "${identity}" PARENT_SCOPE)
  if(ARG_GENERATED_DIR_VAR)
    if(NOT DEFINED ARG_GENERATED_ROOT)
      message(FATAL_ERROR "cuwheel_build_identity: GENERATED_DIR_VAR needs GENERATED_ROOT")
    endif()
    string(REGEX REPLACE "(.)/+$" "\\1" root "${ARG_GENERATED_ROOT}")
    if(root STREQUAL "")
      set(dir "${identity}")
    elseif(root STREQUAL "/")
      set(dir "/${identity}")
    else()
      set(dir "${root}/${identity}")
    endif()
    set(${ARG_GENERATED_DIR_VAR} "${dir}" PARENT_SCOPE)
  endif()
endfunction()

function(cuwheel_identity_check)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "STAMP;IDENTITY;RESULT_VAR;MESSAGE_VAR" "")
  if(NOT ARG_STAMP OR NOT ARG_IDENTITY OR NOT ARG_RESULT_VAR)
    message(FATAL_ERROR "cuwheel_identity_check: STAMP, IDENTITY and RESULT_VAR are required")
  endif()
  if(NOT EXISTS "${ARG_STAMP}")
    set(rebuild TRUE)
    set(msg "no stamp at ${ARG_STAMP} (no completed build recorded), configuration is ${ARG_IDENTITY}: rebuild")
  elseif(IS_DIRECTORY "${ARG_STAMP}")
    message(FATAL_ERROR "cuwheel identity: ${ARG_STAMP}: not a regular file")
  else()
    file(READ "${ARG_STAMP}" recorded LIMIT 4096)
    string(STRIP "${recorded}" recorded)
    if(NOT recorded MATCHES "^cu[1-9][0-9]?[0-9]?(-[a-z][a-z0-9_]*(=[A-Za-z0-9._]+)?)*$")
      set(rebuild TRUE)
      set(msg "${ARG_STAMP}: '${recorded}' is not a build identity; configuration is ${ARG_IDENTITY}: rebuild")
    elseif(recorded STREQUAL ARG_IDENTITY)
      set(rebuild FALSE)
      set(msg "stamp says ${recorded}, configuration is ${ARG_IDENTITY}: up to date")
    else()
      set(rebuild TRUE)
      set(msg "stamp says ${recorded}, configuration is ${ARG_IDENTITY}: rebuild")
    endif()
  endif()
  set(${ARG_RESULT_VAR} ${rebuild} PARENT_SCOPE)
  if(ARG_MESSAGE_VAR)
    set(${ARG_MESSAGE_VAR} "${msg}" PARENT_SCOPE)
  endif()
endfunction()

function(cuwheel_identity_track)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "IDENTITY;STAMP" "TARGETS")
  if(NOT ARG_IDENTITY OR NOT ARG_STAMP OR NOT ARG_TARGETS)
    message(FATAL_ERROR "cuwheel_identity_track: IDENTITY, STAMP and TARGETS are required")
  endif()
  cuwheel_identity_check(STAMP "${ARG_STAMP}" IDENTITY "${ARG_IDENTITY}" RESULT_VAR rebuild MESSAGE_VAR msg)
  set(trigger "${CMAKE_BINARY_DIR}/cuwheel-identity/trigger")
  set(old "")
  if(EXISTS "${trigger}")
    file(READ "${trigger}" old)
  endif()
  if(rebuild OR NOT old STREQUAL "${ARG_IDENTITY}\n")
    message(STATUS "cuwheel identity: ${msg}")
    file(WRITE "${trigger}" "${ARG_IDENTITY}\n")  # new mtime: dependents rebuild
  endif()
  foreach(tgt IN LISTS ARG_TARGETS)
    get_target_property(srcs ${tgt} SOURCES)
    if(srcs)
      set_property(SOURCE ${srcs} TARGET_DIRECTORY ${tgt} APPEND PROPERTY OBJECT_DEPENDS "${trigger}")
    endif()
    set_property(TARGET ${tgt} APPEND PROPERTY LINK_DEPENDS "${trigger}")
  endforeach()
  # A file-level rule: reruns when the trigger or a target's file changed,
  # never when a target failed to build.
  add_custom_command(OUTPUT "${ARG_STAMP}"
    COMMAND "${CMAKE_COMMAND}" -DCUWHEEL_IDENTITY_MODE=stamp "-DSTAMP=${ARG_STAMP}" "-DIDENTITY=${ARG_IDENTITY}"
            -P "${_CUWHEEL_IDENTITY_MODULE}"
    DEPENDS "${trigger}" ${ARG_TARGETS}
    COMMENT "Recording build identity ${ARG_IDENTITY} in ${ARG_STAMP}"
    VERBATIM)
  add_custom_target(cuwheel_identity_stamp ALL DEPENDS "${ARG_STAMP}")
endfunction()

# Script mode: cmake -DCUWHEEL_IDENTITY_MODE=show|stamp ... -P CuwheelIdentity.cmake
if(CMAKE_SCRIPT_MODE_FILE AND CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(CUWHEEL_IDENTITY_MODE STREQUAL "show")
    set(_args)
    if(DEFINED CUDA_MAJOR)
      list(APPEND _args CUDA_MAJOR "${CUDA_MAJOR}")
    endif()
    if(DEFINED TOOLKIT)
      list(APPEND _args TOOLKIT "${TOOLKIT}")
    endif()
    if(DEFINED GENERATED_ROOT)
      list(APPEND _args GENERATED_ROOT "${GENERATED_ROOT}" GENERATED_DIR_VAR _dir)
    endif()
    cuwheel_build_identity(_id ${_args} FLAGS ${FLAGS})
    if(DEFINED GENERATED_ROOT)
      set(_id "${_dir}")
    endif()
    execute_process(COMMAND "${CMAKE_COMMAND}" -E echo "${_id}")  # on stdout, unlike message()
  elseif(CUWHEEL_IDENTITY_MODE STREQUAL "stamp")
    if(NOT STAMP OR NOT IDENTITY)
      message(FATAL_ERROR "cuwheel identity: MODE=stamp needs -DSTAMP and -DIDENTITY")
    endif()
    get_filename_component(_folder "${STAMP}" DIRECTORY)
    if(_folder)
      file(MAKE_DIRECTORY "${_folder}")
    endif()
    string(RANDOM LENGTH 8 _rand)
    set(_tmp "${STAMP}.tmp.${_rand}")
    file(WRITE "${_tmp}" "${IDENTITY}\n")
    file(RENAME "${_tmp}" "${STAMP}")  # rename(2): atomic within one file system
  elseif(DEFINED CUWHEEL_IDENTITY_MODE)
    message(FATAL_ERROR "cuwheel identity: unknown CUWHEEL_IDENTITY_MODE '${CUWHEEL_IDENTITY_MODE}' (show or stamp)")
  endif()
endif()
