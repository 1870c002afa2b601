/* The ISA whose device images the mock device runs, by name, for its
 * messages (mockrt/target/image.c compares ELF headers, not names). */
#ifndef MOCKRT_TARGET_ISA_H
#define MOCKRT_TARGET_ISA_H
#define MOCKRT_TGT_ISA_NAME "aarch64"
#endif
