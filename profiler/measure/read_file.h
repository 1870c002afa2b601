/* Reading measurements on the host: one thread file, or a whole measurement
 * directory (every thread-*.knit file and the SUMMARY line of knit.log).
 *
 * The reader trusts nothing in a file: every count is checked against the
 * bytes that are really there before anything is allocated, every id a record
 * refers to must exist, and a file that fails any check is reported with the
 * reason (truncated, bad magic, wrong version, a count larger than its
 * section, ...) while the other files of the directory still load.
 */
#ifndef KNIT_MEASURE_READ_FILE_H
#define KNIT_MEASURE_READ_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "measure/format.h"

/* One entry of a thread's load map. */
typedef struct knit_read_module {
  uint32_t id;   /* the id nodes of this file use */
  uint64_t base; /* load address in the profiled process */
  char *path;    /* as the tool saw it; NUL-terminated */
} knit_read_module;

/* A CCT node with its references resolved to array indexes. */
typedef struct knit_read_node {
  uint32_t parent; /* index into nodes; the root (index 0) is its own parent */
  uint32_t module; /* index into modules, or KNIT_MODULE_PLACEHOLDER/UNKNOWN */
  uint8_t kind;    /* knit_node_kind */
  uint64_t offset;
} knit_read_node;

typedef struct knit_read_metric {
  uint32_t node;   /* index into nodes */
  uint32_t metric; /* knit_metric; ids this reader does not know are kept */
  uint64_t value;
} knit_read_metric;

/* Unwind steps of one module, by class (format.h: knit_steps_record). */
typedef struct knit_read_steps {
  uint32_t module; /* index into modules, or KNIT_MODULE_UNKNOWN */
  uint64_t confirmed;
  uint64_t probable;
  uint64_t wrong;
} knit_read_steps;

/* Everything one thread file holds. */
typedef struct knit_thread_file {
  char *name; /* file name within the directory */
  knit_file_header header;
  char event[sizeof(((knit_file_header *)0)->event) + 1]; /* NUL-terminated */
  size_t module_count;
  knit_read_module *modules;
  size_t node_count;     /* 0 when the thread took no sample */
  knit_read_node *nodes; /* sorted by id, parents before children */
  size_t metric_count;
  knit_read_metric *metrics;
  uint64_t stats[KNIT_STAT_COUNT]; /* zero for statistics not in the file */
  int has_steps;                   /* 1 when the file has a STEPS section */
  size_t step_count;
  knit_read_steps *steps; /* in file order */
  int saturated;          /* 1 when a statistic listed more than once
                                    added up past UINT64_MAX (measure/count.h) */
  int other_byte_order;   /* 1 when written by a process of the other
                                    byte order than this reader's (read in
                                    the reader's, measure/read_byte_order.h) */
} knit_thread_file;

/* Parses a thread file from memory. On success returns 0 and fills out (free
 * with knit_thread_file_free); on failure returns -1, leaves out empty, and
 * writes the reason (without the file name) into err. */
int knit_thread_file_parse(const uint8_t *data, size_t len, knit_thread_file *out, char *err,
                           size_t errlen);

/* Reads and parses the file at path; as knit_thread_file_parse, with out->name
 * set to the last component of path. */
int knit_thread_file_read(const char *path, knit_thread_file *out, char *err, size_t errlen);

void knit_thread_file_free(knit_thread_file *f);

/* A measurement directory. */
typedef struct knit_measurement {
  char *dir;
  size_t thread_count;
  knit_thread_file *threads; /* sorted by thread index, then tid */
  size_t failed_count;
  char **failures; /* "thread-1-42.knit: truncated: ...", the
                                    name printable (read_printable.h) */
  char *summary;   /* knit.log's last SUMMARY line, or NULL;
                                    printable (read_printable.h) */
  char *ending;    /* its last "end: " line (how the run
                                    ended: exit, a signal, a crash), or NULL;
                                    printable */
  char *unwritten; /* its last "unwritten: " line (files the
                                    run could not write, and why), or NULL;
                                    printable */
  char *devices;   /* the target devices its "ompt: device" lines
                                    name, "device 0 (TYPE), ...", or NULL;
                                    printable */
  int log_read;    /* 1 when knit.log was there and read */
  int log_skipped; /* 1 when knit.log is no regular file (a
                                    FIFO, say) and was not read */
  /* The first thread's event, printable (read_printable.h): at most four
   * bytes of escape for each byte of the header's. */
  char event[4 * sizeof(((knit_file_header *)0)->event) + 1];
  uint64_t period;  /* first thread's, ns */
  int mixed_events; /* 1 when the threads disagree on the event */
} knit_measurement;

/* Reads every thread-*.knit file of dir. Returns 0 when the directory could be
 * read and held at least one thread file (some of which may have failed:
 * see failed_count; thread_count may be 0 when all failed). Returns -1 with
 * the reason in err when the directory cannot be opened or holds no thread
 * file at all. */
int knit_measurement_read(const char *dir, knit_measurement *m, char *err, size_t errlen);

void knit_measurement_free(knit_measurement *m);

/* The value of "key=NUMBER" in a SUMMARY line (words separated by spaces).
 * Returns 0 and sets *out, or -1 when the key is absent or not a number. */
int knit_summary_u64(const char *summary, const char *key, uint64_t *out);

#endif /* KNIT_MEASURE_READ_FILE_H */
