# Cross build for ppc64 (big-endian, ELFv1): gcc-powerpc64-linux-gnu, tests
# under qemu-ppc64. Debian 12 has no ppc64 packages of the libraries, so
# ci/target-libs.sh builds the root from source for this one.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ppc64)
set(KNIT_TRIPLET powerpc64-linux-gnu)
set(CMAKE_C_COMPILER ${KNIT_TRIPLET}-gcc)
set(CMAKE_ASM_COMPILER ${KNIT_TRIPLET}-gcc)
set(KNIT_CLANG_TARGET ${KNIT_TRIPLET})
set(CMAKE_FIND_ROOT_PATH /usr/${KNIT_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-ppc64;-L;/usr/${KNIT_TRIPLET})
