# Chooses the libtorch to build against (RANKTEST_LIBTORCH) and finds it, its
# CUDA toolkit and the nccl.h of the NCCL it was built with.
#
#   wheel   (default) torch==2.11.0 from PyPI, installed by ci/setup into the
#           project's environment RANKTEST_TORCH_VENV (.venv-torch)
#   debian  Debian bookworm's libtorch-dev 1.13 (CPU only, no NCCL)
#   <path>  any other libtorch 2.x: a prefix with share/cmake/Torch, a
#           site-packages/torch folder, or the folder of TorchConfig.cmake
set(RANKTEST_LIBTORCH "wheel" CACHE STRING
    "libtorch to build against: wheel, debian, or the path of a libtorch 2.x")
set(RANKTEST_TORCH_VENV "${PROJECT_SOURCE_DIR}/.venv-torch" CACHE PATH
    "The Python environment ci/setup installs the torch wheel into")

function(_ranktest_torch_config_dir root out)
  foreach(candidate "${root}" "${root}/Torch" "${root}/share/cmake/Torch")
    if(EXISTS "${candidate}/TorchConfig.cmake")
      set(${out} "${candidate}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

if(RANKTEST_LIBTORCH STREQUAL "wheel")
  file(GLOB _ranktest_wheel_torch
       "${RANKTEST_TORCH_VENV}/lib/python3*/site-packages/torch")
  if(NOT _ranktest_wheel_torch)
    message(FATAL_ERROR
      "RANKTEST_LIBTORCH=wheel, but ${RANKTEST_TORCH_VENV} has no torch: "
      "run ci/setup (it installs torch==2.11.0 there), or configure with "
      "-DRANKTEST_LIBTORCH=debian or -DRANKTEST_LIBTORCH=<your libtorch>")
  endif()
  list(GET _ranktest_wheel_torch 0 _ranktest_torch_root)
elseif(RANKTEST_LIBTORCH STREQUAL "debian")
  set(_ranktest_torch_root "/usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/cmake/Torch")
else()
  set(_ranktest_torch_root "${RANKTEST_LIBTORCH}")
endif()
_ranktest_torch_config_dir("${_ranktest_torch_root}" _ranktest_torch_dir)
if(NOT _ranktest_torch_dir)
  message(FATAL_ERROR "RANKTEST_LIBTORCH=${RANKTEST_LIBTORCH}: no "
                      "TorchConfig.cmake under ${_ranktest_torch_root}")
endif()
# Explicit, so that a libtorch elsewhere on the prefix path is never taken.
set(Torch_DIR "${_ranktest_torch_dir}" CACHE PATH "libtorch's CMake package"
    FORCE)

# A CUDA build of libtorch enables CUDA in its config file and needs the
# toolkit's nvcc; take it from CUDA_HOME (or /usr/local/cuda) unless given.
get_filename_component(_ranktest_torch_prefix "${_ranktest_torch_dir}/../../.."
                       ABSOLUTE)
file(GLOB _ranktest_torch_cuda_lib "${_ranktest_torch_prefix}/lib/libtorch_cuda.so")
# ranktest compiles no CUDA code; a given list also spares the config file a
# try_run that looks for GPUs (which fails to configure on CMake < 3.26).
if(_ranktest_torch_cuda_lib AND NOT DEFINED TORCH_CUDA_ARCH_LIST
   AND NOT DEFINED ENV{TORCH_CUDA_ARCH_LIST})
  set(TORCH_CUDA_ARCH_LIST "9.0")
endif()
if(_ranktest_torch_cuda_lib AND NOT CMAKE_CUDA_COMPILER)
  foreach(_ranktest_cuda_home "$ENV{CUDA_HOME}" "$ENV{CUDA_PATH}" /usr/local/cuda)
    if(_ranktest_cuda_home AND EXISTS "${_ranktest_cuda_home}/bin/nvcc")
      set(CMAKE_CUDA_COMPILER "${_ranktest_cuda_home}/bin/nvcc" CACHE FILEPATH
          "nvcc of the CUDA toolkit libtorch was built with")
      set(CUDAToolkit_ROOT "${_ranktest_cuda_home}")
      break()
    endif()
  endforeach()
  if(NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "${_ranktest_torch_prefix} is a CUDA build of "
      "libtorch, which needs the CUDA toolkit's nvcc to configure: set "
      "CUDA_HOME or -DCMAKE_CUDA_COMPILER")
  endif()
endif()

# TorchConfig finds its libraries (c10, c10_cuda, ...) with find_library,
# which would take a system libtorch's (Debian's 1.13) before its own: search
# its prefix first.
list(PREPEND CMAKE_PREFIX_PATH "${_ranktest_torch_prefix}")
find_package(Torch REQUIRED)
set(RANKTEST_TORCH_PREFIX "${_ranktest_torch_prefix}")

# The nccl.h of the NCCL libtorch was built with: its Options structs embed
# NCCL's config struct, and a different header lays them out differently
# (heap corruption, not a compile error). A wheel's is beside it, in the
# nvidia-nccl package; elsewhere the CUDA toolkit's, checked at run time
# against the version libtorch reports (ranktest::ncclHeaderMatchesTorch).
find_path(RANKTEST_NCCL_INCLUDE_DIR nccl.h
  PATHS "${_ranktest_torch_prefix}/../nvidia/nccl/include"
        "${CUDAToolkit_ROOT}/include" "$ENV{CUDA_HOME}/include"
        /usr/local/cuda/include
  NO_DEFAULT_PATH
  DOC "Folder of the nccl.h of the NCCL libtorch was built with")

# The torchrun of the same PyTorch: a torchrun of 1.13 cannot host a 2.x
# store (2.x clients open with a handshake 1.13 does not know), nor the
# other way round. The launcher tests and ci/cluster start this one.
if(RANKTEST_LIBTORCH STREQUAL "wheel")
  set(_ranktest_torchrun_hint "${RANKTEST_TORCH_VENV}/bin")
elseif(RANKTEST_LIBTORCH STREQUAL "debian")
  set(_ranktest_torchrun_hint /usr/bin)
else()
  # site-packages/torch of an environment: its bin/ is three folders up.
  get_filename_component(_ranktest_torchrun_hint
                         "${_ranktest_torch_prefix}/../../../../bin" ABSOLUTE)
endif()
find_program(RANKTEST_TORCHRUN torchrun PATHS "${_ranktest_torchrun_hint}"
             NO_DEFAULT_PATH DOC "torchrun of the PyTorch libtorch comes from")
if(NOT RANKTEST_TORCHRUN)
  message(STATUS "ranktest: no torchrun in ${_ranktest_torchrun_hint}; the "
                 "torchrun tests skip")
  set(RANKTEST_TORCHRUN "${_ranktest_torchrun_hint}/torchrun")
endif()

# For ci/matrix's libtorch axis.
set(RANKTEST_TORCH_VERSION "${Torch_VERSION}" CACHE INTERNAL
    "Version of the libtorch built against")
