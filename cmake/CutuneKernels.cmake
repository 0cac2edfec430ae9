# CutuneKernels.cmake — build the configurations a cutune header ships into a library, with
# nvcc, for the architectures you list. Include it from your own project:
#
#   include(/path/to/cutune/cmake/CutuneKernels.cmake)
#   cutune_add_tuned_kernels(TARGET my_kernels
#     SPACE    transpose                     # the space's name (as in the header's functions)
#     HEADER   results/transpose.h           # written by `cutune header`
#     TEMPLATE templates/transpose.cu        # the template the space tunes
#     KERNEL   transpose                     # its extern "C" __global__ function
#     ARCHS    80 90                         # CUDA architectures to build (default: CMAKE_CUDA_ARCHITECTURES or 90;
#                                            # 90a for sm_90a's own instructions: the hgemm space's wgmma)
#     SOURCES  my_launcher.cu                # your launcher: cutune_<space>_select + the grid rule
#     UNITS    nvrtc)                        # nvrtc (default; $CUTUNE_UNITS) or nvcc, see below
#
# For every "cutune-config ID NAME=V ..." line of the header it generates one translation unit
# (lines with the same values, configurations that differ only in runtime parameters, share the
# first one's). UNITS nvrtc: the template with the parameters #defined is compiled at build time
# by NVRTC, as `cutune run` compiled it when it measured it (kernels/nvrtc_cubin.c, built here
# as the tool cutune_nvrtc_cubin), for each architecture, into one fatbinary that the unit
# embeds and loads with cudaLibraryLoadData at its first use (cmake/cutune_nvrtc_unit.cmake):
# nvcc's code for the same source differs, registers and speed included (docs/HEADER.md, "The
# kernels a build ships"). UNITS nvcc: the unit #defines the parameters, renames the kernel to
# cutune_<space>_kernel_ID and includes the template, for nvcc. One more unit gives
#   extern "C" const void *cutune_<space>_kernel(int config);
# the kernel of a shipped configuration (NULL outside 0..NCONFIGS-1), to launch with
# cudaLaunchKernel(kernel, grid, block, args, entry->shared_bytes, stream). The header's folder
# is on the target's include path. The project must enable the CUDA language.
# Regenerating the header re-runs CMake (the header is a configure dependency).

function(cutune_add_tuned_kernels)
  cmake_parse_arguments(CT "" "TARGET;SPACE;HEADER;TEMPLATE;KERNEL;UNITS" "ARCHS;SOURCES" ${ARGN})
  if(NOT CT_UNITS)
    set(CT_UNITS nvrtc)
    if(DEFINED ENV{CUTUNE_UNITS} AND NOT "$ENV{CUTUNE_UNITS}" STREQUAL "")
      set(CT_UNITS "$ENV{CUTUNE_UNITS}")
    endif()
  endif()
  if(NOT CT_UNITS MATCHES "^(nvrtc|nvcc)$")
    message(FATAL_ERROR "cutune_add_tuned_kernels: UNITS is nvrtc or nvcc, not '${CT_UNITS}'")
  endif()
  foreach(req TARGET SPACE HEADER TEMPLATE KERNEL)
    if(NOT CT_${req})
      message(FATAL_ERROR "cutune_add_tuned_kernels: ${req} is required")
    endif()
  endforeach()
  get_filename_component(header "${CT_HEADER}" ABSOLUTE)
  get_filename_component(template "${CT_TEMPLATE}" ABSOLUTE)
  if(NOT EXISTS "${header}")
    message(FATAL_ERROR "cutune_add_tuned_kernels: header ${header} not found (write it with `cutune header SPACE.lua -o ${CT_HEADER}`)")
  endif()
  if(NOT EXISTS "${template}")
    message(FATAL_ERROR "cutune_add_tuned_kernels: template ${template} not found")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${header}")
  file(STRINGS "${header}" lines REGEX "^ \\* cutune-config [0-9]+")
  if(NOT lines)
    message(FATAL_ERROR "cutune_add_tuned_kernels: ${header} has no 'cutune-config' lines: not a header of `cutune header`?")
  endif()
  set(gen "${CMAKE_CURRENT_BINARY_DIR}/cutune_${CT_TARGET}")
  if(CT_ARCHS)
    set(archs ${CT_ARCHS})
  elseif(CMAKE_CUDA_ARCHITECTURES)
    set(archs ${CMAKE_CUDA_ARCHITECTURES})
  else()
    set(archs 90)
  endif()
  find_package(CUDAToolkit REQUIRED)
  string(REPLACE ";" "," archs_c "${archs}") # one argument for the unit script
  list(GET CUDAToolkit_INCLUDE_DIRS 0 cuda_inc)
  if(CT_UNITS STREQUAL "nvrtc" AND NOT TARGET cutune_nvrtc_cubin)
    set(tool_src "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/../kernels/nvrtc_cubin.c")
    set_source_files_properties("${tool_src}" PROPERTIES LANGUAGE CXX)
    add_executable(cutune_nvrtc_cubin "${tool_src}")
    target_link_libraries(cutune_nvrtc_cubin PRIVATE CUDA::nvrtc)
  endif()
  set(sources)
  set(decls "")
  set(cases "")
  set(seen_defs)
  set(seen_fns)
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^ \\* cutune-config ([0-9]+) ?(.*)$" "\\1" id "${line}")
    string(REGEX REPLACE "^ \\* cutune-config ([0-9]+) ?(.*)$" "\\2" defs "${line}")
    # configurations that differ only in runtime parameters (which the lines leave out) have
    # the same line: one translation unit, one kernel for all of them
    string(MD5 defs_key "${defs}")
    list(FIND seen_defs "${defs_key}" at)
    if(at GREATER -1)
      list(GET seen_fns ${at} first_fn)
      string(APPEND cases "    case ${id}: return ${first_fn}_ptr();\n")
      continue()
    endif()
    separate_arguments(defs UNIX_COMMAND "${defs}")
    set(body "// Generated by cutune_add_tuned_kernels from ${header}: configuration ${id}.\n")
    foreach(d IN LISTS defs)
      string(REPLACE "=" " " d "${d}")
      string(APPEND body "#define ${d}\n")
    endforeach()
    set(fn "cutune_${CT_SPACE}_kernel_${id}")
    list(APPEND seen_defs "${defs_key}")
    list(APPEND seen_fns "${fn}")
    if(CT_UNITS STREQUAL "nvrtc")
      string(APPEND body "#include \"${template}\"\n")
      file(CONFIGURE OUTPUT "${gen}/nvrtc_${id}.cu" CONTENT "${body}" @ONLY)
      add_custom_command(OUTPUT "${gen}/config_${id}.cu"
        COMMAND "${CMAKE_COMMAND}" "-DTOOL=$<TARGET_FILE:cutune_nvrtc_cubin>" "-DSRC=${gen}/nvrtc_${id}.cu"
                "-DOUT=${gen}/config_${id}.cu" "-DFN=${fn}" "-DKERNEL=${CT_KERNEL}" "-DARCHS=${archs_c}"
                "-DFATBINARY=${CUDAToolkit_BIN_DIR}/fatbinary" "-DCUDA_INC=${cuda_inc}"
                -P "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cutune_nvrtc_unit.cmake"
        DEPENDS cutune_nvrtc_cubin "${gen}/nvrtc_${id}.cu" "${template}"
                "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/cutune_nvrtc_unit.cmake"
        COMMENT "cutune: ${CT_SPACE} configuration ${id} by NVRTC (${archs})" VERBATIM)
    else()
      string(APPEND body "#define ${CT_KERNEL} ${fn}\n#include \"${template}\"\n#undef ${CT_KERNEL}\n"
                         "extern \"C\" const void *${fn}_ptr(void) { return (const void *)&${fn}; }\n")
      file(CONFIGURE OUTPUT "${gen}/config_${id}.cu" CONTENT "${body}" @ONLY)
    endif()
    list(APPEND sources "${gen}/config_${id}.cu")
    string(APPEND decls "extern \"C\" const void *${fn}_ptr(void);\n")
    string(APPEND cases "    case ${id}: return ${fn}_ptr();\n")
  endforeach()
  file(CONFIGURE OUTPUT "${gen}/kernels.cu" CONTENT
"// Generated by cutune_add_tuned_kernels from ${header}: the kernel of each shipped configuration.\n${decls}
extern \"C\" const void *cutune_${CT_SPACE}_kernel(int config) {\n  switch (config) {\n${cases}    default: return 0;\n  }\n}\n" @ONLY)
  list(APPEND sources "${gen}/kernels.cu")
  add_library(${CT_TARGET} STATIC ${sources} ${CT_SOURCES})
  get_filename_component(hdir "${header}" DIRECTORY)
  set_target_properties(${CT_TARGET} PROPERTIES CUDA_ARCHITECTURES "${archs}" POSITION_INDEPENDENT_CODE ON)
  target_include_directories(${CT_TARGET} PUBLIC "${hdir}")
  target_link_libraries(${CT_TARGET} PUBLIC CUDA::cudart)
endfunction()
