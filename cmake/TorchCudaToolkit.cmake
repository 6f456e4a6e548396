# Included before find_package(Torch). A CUDA build of LibTorch (pip's torch on Linux is one) needs a
# CUDA toolkit at configure time: its Caffe2Config runs FindCUDA and enable_language(CUDA). This file
# 1. reads LibTorch's CUDA version (pip's torch/version.py or libtorch's build-version, "+cu130" = 13.0);
# 2. takes a system toolkit (nvcc on PATH, CUDA_HOME, /usr/local/cuda) when its major matches, stops
#    with one line when it does not, and otherwise assembles a toolkit root from NVIDIA's pip wheels
#    beside pip's torch (scripts/install_deps.sh installs those of torch's own CUDA release);
# 3. sets HAMGAN_NCCL_INCLUDE_DIR to the headers of the NCCL LibTorch loads (pip: nvidia/nccl/include),
#    or stops with one line when LibTorch has NCCL and no matching header is found.
# docs/building.md explains each step.

# CMake wraps FATAL_ERROR text; the reason goes out first as one unwrapped line, as hamgan's own errors do.
function(hamgan_configure_error)
  set(reason "")
  math(EXPR last "${ARGC} - 1")
  foreach(i RANGE ${last})
    string(APPEND reason "${ARGV${i}}")  # ARGV<i> keeps the semicolons ARGN would split on
  endforeach()
  message(NOTICE "hamgan: error: ${reason}")
  message(FATAL_ERROR "configure stopped (the reason is the line above)")
endfunction()

function(hamgan_find_torch_dir out)
  if(Torch_DIR)
    set(${out} "${Torch_DIR}" PARENT_SCOPE)
    return()
  endif()
  set(prefixes ${CMAKE_PREFIX_PATH} $ENV{CMAKE_PREFIX_PATH})
  string(REPLACE ":" ";" prefixes "${prefixes}")
  foreach(p ${prefixes})
    foreach(sub Torch share/cmake/Torch)
      if(EXISTS "${p}/${sub}/TorchConfig.cmake")
        set(${out} "${p}/${sub}" PARENT_SCOPE)
        return()
      endif()
    endforeach()
  endforeach()
  set(${out} "" PARENT_SCOPE)
endfunction()

# "13.0" from a line holding "+cu130" in LibTorch's version files; empty for a CPU LibTorch.
function(hamgan_torch_cuda_version torch_root out)
  set(${out} "" PARENT_SCOPE)
  foreach(f "${torch_root}/version.py" "${torch_root}/build-version")
    if(EXISTS "${f}")
      file(STRINGS "${f}" lines REGEX "\\+cu[0-9][0-9]+")
      if(lines)
        string(REGEX MATCH "\\+cu([0-9]+)([0-9])" _ "${lines}")
        set(${out} "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}" PARENT_SCOPE)
        return()
      endif()
    endif()
  endforeach()
endfunction()

function(hamgan_nvcc_version nvcc out)
  execute_process(COMMAND "${nvcc}" --version OUTPUT_VARIABLE text ERROR_QUIET)
  string(REGEX MATCH "release ([0-9]+)\\.([0-9]+)" _ "${text}")
  set(${out} "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}" PARENT_SCOPE)
endfunction()

# One toolkit root from the wheels' nvidia/<package>/{bin,include,lib,nvvm} folders: links to every
# entry (nvcc's folder as hard links, since nvcc finds its nvcc.profile, NVVM and headers relative to
# itself), lib64 with the unversioned library names CMake searches for (libcudart.so, libnvrtc.so).
function(hamgan_assemble_wheel_toolkit site root)
  file(REMOVE_RECURSE "${root}")
  file(MAKE_DIRECTORY "${root}/bin" "${root}/include" "${root}/lib64")
  file(GLOB packages LIST_DIRECTORIES true "${site}/nvidia/*")
  foreach(pkg ${packages})
    foreach(kind include lib bin)
      set(dest "${root}/${kind}")
      if(kind STREQUAL "lib")
        set(dest "${root}/lib64")
      endif()
      file(GLOB entries LIST_DIRECTORIES true "${pkg}/${kind}/*")
      foreach(e ${entries})
        get_filename_component(name "${e}" NAME)
        if(EXISTS "${dest}/${name}" OR IS_SYMLINK "${dest}/${name}")
          continue()
        endif()
        if(kind STREQUAL "bin" AND NOT IS_DIRECTORY "${e}")
          file(CREATE_LINK "${e}" "${dest}/${name}" COPY_ON_ERROR)
        else()
          file(CREATE_LINK "${e}" "${dest}/${name}" SYMBOLIC)
        endif()
        string(REGEX MATCH "^(lib[^.]+\\.so)\\.[0-9]" versioned "${name}")
        if(kind STREQUAL "lib" AND versioned AND NOT EXISTS "${dest}/${CMAKE_MATCH_1}")
          file(CREATE_LINK "${e}" "${dest}/${CMAKE_MATCH_1}" SYMBOLIC)
        endif()
      endforeach()
    endforeach()
    if(IS_DIRECTORY "${pkg}/nvvm" AND NOT EXISTS "${root}/nvvm")
      file(CREATE_LINK "${pkg}/nvvm" "${root}/nvvm" SYMBOLIC)
    endif()
  endforeach()
  file(CREATE_LINK "${root}/lib64" "${root}/lib" SYMBOLIC)
endfunction()

option(HAMGAN_CUDA_FROM_WHEELS "Use the CUDA toolkit from NVIDIA's wheels beside pip's torch even where a system one exists" OFF)
hamgan_find_torch_dir(HAMGAN_TORCH_CMAKE_DIR)
set(HAMGAN_TORCH_CUDA "")
if(HAMGAN_TORCH_CMAKE_DIR)
  get_filename_component(HAMGAN_TORCH_ROOT "${HAMGAN_TORCH_CMAKE_DIR}/../../.." ABSOLUTE)
  get_filename_component(HAMGAN_TORCH_SITE "${HAMGAN_TORCH_ROOT}/.." ABSOLUTE)
  hamgan_torch_cuda_version("${HAMGAN_TORCH_ROOT}" HAMGAN_TORCH_CUDA)
endif()

if(HAMGAN_TORCH_CUDA)
  string(REGEX MATCH "^[0-9]+" torch_cuda_major "${HAMGAN_TORCH_CUDA}")
  set(wheel_root "${CMAKE_BINARY_DIR}/cuda-from-wheels")
  # The wheels' toolkit when asked for, else a toolkit the user named, else one on the system, else the wheels'.
  set(nvcc "")
  if(HAMGAN_CUDA_FROM_WHEELS)
    # nvcc stays empty: the wheels' toolkit below
  elseif(CMAKE_CUDA_COMPILER)
    set(nvcc "${CMAKE_CUDA_COMPILER}")
  elseif(CUDAToolkit_ROOT OR CUDA_TOOLKIT_ROOT_DIR)
    find_program(nvcc NAMES nvcc PATHS "${CUDAToolkit_ROOT}/bin" "${CUDA_TOOLKIT_ROOT_DIR}/bin" NO_DEFAULT_PATH NO_CACHE)
  else()
    find_program(HAMGAN_SYSTEM_NVCC NAMES nvcc PATHS ENV CUDA_HOME ENV CUDA_PATH /usr/local/cuda
                 PATH_SUFFIXES bin NO_CACHE)
    set(nvcc "${HAMGAN_SYSTEM_NVCC}")
  endif()
  if(nvcc AND NOT nvcc MATCHES "^${wheel_root}/")
    hamgan_nvcc_version("${nvcc}" toolkit_version)
    string(REGEX MATCH "^[0-9]+" toolkit_major "${toolkit_version}")
    if(NOT toolkit_major STREQUAL torch_cuda_major)
      hamgan_configure_error("the CUDA toolkit at ${nvcc} is CUDA ${toolkit_version} but LibTorch at ${HAMGAN_TORCH_ROOT} "
              "was built for CUDA ${HAMGAN_TORCH_CUDA}; configure with -DHAMGAN_CUDA_FROM_WHEELS=ON to use the toolkit "
              "of LibTorch's CUDA release from NVIDIA's wheels (scripts/install_deps.sh installs them; for scripts/build.sh "
              "put it in HAMGAN_CMAKE_ARGS), or install a torch built for CUDA ${toolkit_major} "
              "(HAMGAN_TORCH_CUDA=cu${toolkit_major}X scripts/install_deps.sh)")
    endif()
    message(STATUS "HamGAN: CUDA toolkit ${toolkit_version} at ${nvcc} for LibTorch's CUDA ${HAMGAN_TORCH_CUDA}")
  else()
    file(GLOB wheel_nvcc "${HAMGAN_TORCH_SITE}/nvidia/*/bin/nvcc")
    if(NOT wheel_nvcc)
      hamgan_configure_error("LibTorch at ${HAMGAN_TORCH_ROOT} was built for CUDA ${HAMGAN_TORCH_CUDA} and its CMake config "
              "needs a CUDA toolkit, but there is none: run scripts/install_deps.sh (it installs NVIDIA's toolkit wheels "
              "of CUDA ${HAMGAN_TORCH_CUDA} beside torch) or pass -DCUDAToolkit_ROOT=DIR of a CUDA ${torch_cuda_major} toolkit")
    endif()
    if(NOT EXISTS "${wheel_root}/bin/nvcc")
      hamgan_assemble_wheel_toolkit("${HAMGAN_TORCH_SITE}" "${wheel_root}")
    endif()
    set(CUDA_TOOLKIT_ROOT_DIR "${wheel_root}" CACHE PATH "CUDA toolkit LibTorch's CMake config uses")
    set(CUDAToolkit_ROOT "${wheel_root}")
    set(CMAKE_CUDA_COMPILER "${wheel_root}/bin/nvcc" CACHE FILEPATH "CUDA compiler")
    set(CUDA_NVCC_EXECUTABLE "${wheel_root}/bin/nvcc" CACHE FILEPATH "nvcc for FindCUDA")
    hamgan_nvcc_version("${wheel_root}/bin/nvcc" toolkit_version)
    message(STATUS "HamGAN: CUDA toolkit ${toolkit_version} from NVIDIA's wheels in ${HAMGAN_TORCH_SITE}/nvidia")
  endif()
endif()

# NCCL: the header must be that of the library LibTorch loads (NCCL's structs change between releases).
option(HAMGAN_WITH_NCCL "Build the NCCL backend when LibTorch has CUDA and NCCL" ON)
set(HAMGAN_NCCL_INCLUDE_DIR "" CACHE PATH "nccl.h of the NCCL LibTorch loads (found beside pip's torch)")
if(HAMGAN_TORCH_CUDA AND HAMGAN_WITH_NCCL AND NOT HAMGAN_NCCL_INCLUDE_DIR)
  if(EXISTS "${HAMGAN_TORCH_SITE}/nvidia/nccl/include/nccl.h")
    set(HAMGAN_NCCL_INCLUDE_DIR "${HAMGAN_TORCH_SITE}/nvidia/nccl/include" CACHE PATH "" FORCE)
  else()
    file(GLOB torch_nccl "${HAMGAN_TORCH_ROOT}/lib/libnccl*" "${HAMGAN_TORCH_SITE}/nvidia/nccl/lib/libnccl*")
    if(torch_nccl)
      hamgan_configure_error("LibTorch at ${HAMGAN_TORCH_ROOT} loads NCCL (${torch_nccl}) but no nccl.h of that NCCL "
              "was found: pass -DHAMGAN_NCCL_INCLUDE_DIR=DIR holding its nccl.h, or -DHAMGAN_WITH_NCCL=OFF")
    endif()
  endif()
endif()
set(HAMGAN_NCCL OFF)
if(HAMGAN_WITH_NCCL AND HAMGAN_NCCL_INCLUDE_DIR)
  file(STRINGS "${HAMGAN_NCCL_INCLUDE_DIR}/nccl.h" nccl_lines REGEX "^#define NCCL_(MAJOR|MINOR|PATCH) ")
  string(REGEX REPLACE "[^0-9;]" "" nccl_parts "${nccl_lines}")
  string(REPLACE ";" "." HAMGAN_NCCL_HEADER_VERSION "${nccl_parts}")
  set(HAMGAN_NCCL ON)
  message(STATUS "HamGAN: NCCL headers ${HAMGAN_NCCL_HEADER_VERSION} from ${HAMGAN_NCCL_INCLUDE_DIR}")
endif()
