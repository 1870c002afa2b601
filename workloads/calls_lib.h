/* A shared library of the calls workload: calls into it go through the PLT. */
#ifndef KNIT_WORKLOADS_CALLS_LIB_H
#define KNIT_WORKLOADS_CALLS_LIB_H

#include <stdint.h>

uint64_t calls_lib_checksum(uint64_t seed, unsigned units);

#endif
