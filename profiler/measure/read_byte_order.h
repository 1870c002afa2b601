/* Thread files of the other byte order: libknit writes its records as the
 * profiled process holds them, so a big-endian guest (ppc64 under QEMU)
 * leaves big-endian files for a little-endian host to read. The reader turns
 * such a file into the host's order once, in a copy, and parses that. */
#ifndef KNIT_MEASURE_READ_BYTE_ORDER_H
#define KNIT_MEASURE_READ_BYTE_ORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"

/* Swaps every field knit's format defines in a thread file, in place: into
 * this host's order when to_host (a file of the other byte order), out of it
 * otherwise (what a process of the other order would have written: tests): the header, each section header, and the records of
 * the sections this reader knows (unknown sections are skipped by the parser
 * and left alone). Never reads or writes outside [data, data+len): where a
 * count or a length runs past its bytes the swap stops there, and the
 * parser then reports the file as it reports any corrupt one. */
void knit_thread_file_swap(uint8_t *data, size_t len, bool to_host);

/* Whether a file's byte-order mark reads swapped: the file was written by a
 * process of the other byte order. Thread files and trace files (format.h)
 * both hold the mark after their 8-byte magic and u32 version; 0 for data
 * too short to hold it. */
int knit_header_other_byte_order(const uint8_t *data, size_t len);

/* Swaps every field of a trace file's header, which is the whole of what a
 * trace file's header needs to be read in this host's order. */
void knit_trace_header_swap(knit_trace_header *h);

#endif /* KNIT_MEASURE_READ_BYTE_ORDER_H */
