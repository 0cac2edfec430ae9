# cutune_nvrtc_unit.cmake — one shipped configuration's translation unit in UNITS nvrtc mode of
# cutune_add_tuned_kernels (CutuneKernels.cmake), run at build time as
#   cmake -DTOOL=... -DSRC=... -DOUT=... -DFN=... -DKERNEL=... -DARCHS=90,80 -DFATBINARY=...
#         -DCUDA_INC=... -P cutune_nvrtc_unit.cmake
# SRC (the template with the configuration's #defines) is compiled by TOOL (kernels/nvrtc_cubin.c:
# NVRTC with the options `cutune run` measured it with) for each architecture of ARCHS, the cubins
# go into one fatbinary, and TOOL --embed writes OUT: its bytes and FN_ptr(), which loads it
# with cudaLibraryLoadData at the first call and returns the kernel KERNEL as a cudaKernel_t. ptxas' reports go to OUT.ptxas.txt. The same units as
# kernels/build_nvcc.sh writes (docs/HEADER.md, "The kernels a build ships").
foreach(v TOOL SRC OUT FN KERNEL ARCHS FATBINARY)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "cutune_nvrtc_unit.cmake: ${v} is not set")
  endif()
endforeach()
set(images)
string(REPLACE "," ";" ARCHS "${ARCHS}")
file(WRITE "${OUT}.ptxas.txt" "")
foreach(a IN LISTS ARCHS)
  string(REGEX REPLACE "-(real|virtual)$" "" a "${a}")
  set(cubin "${OUT}.sm_${a}.cubin")
  execute_process(COMMAND "${TOOL}" "${a}" "${SRC}" "${cubin}" "-I${CUDA_INC}"
                  RESULT_VARIABLE rc OUTPUT_VARIABLE report ERROR_VARIABLE log)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cutune: NVRTC failed on ${SRC} for sm_${a}:\n${log}")
  endif()
  file(APPEND "${OUT}.ptxas.txt" "${report}")
  list(APPEND images "--image3=kind=elf,sm=${a},file=${cubin}")
endforeach()
execute_process(COMMAND "${FATBINARY}" -64 "--create=${OUT}.fatbin" ${images} RESULT_VARIABLE rc ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cutune: fatbinary failed for ${SRC}:\n${log}")
endif()
execute_process(COMMAND "${TOOL}" --embed "${FN}" "${KERNEL}" "${OUT}.fatbin" "${OUT}.tmp" RESULT_VARIABLE rc
                ERROR_VARIABLE log)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cutune: writing ${OUT} failed:\n${log}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
