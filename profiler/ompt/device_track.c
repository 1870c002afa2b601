/* Device tracks of a trace: see device_track.h. */
#include "ompt/device_track.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/write_all.h"
#include "core/session.h"
#include "core/trace.h"
#include "measure/format.h"

/* One lock for every device's file: buffers of one device may complete on
 * two threads at once, and their groups must not interleave. */
static pthread_mutex_t files_lock = PTHREAD_MUTEX_INITIALIZER;

/* Devices whose file was made by this process, so that a later write
 * appends to it rather than replacing it (KNIT_MAX_DEVICES at most are
 * traced; a bit per device number). */
static uint64_t files_made;

bool knit_device_track_enabled(void)
{
  return knit_the_session.trace && knit_the_session.active;
}


/* The device's file, open for appending, made with its header at the
 * first call; -1 when it cannot be. With files_lock held. */
static int open_file(int device_num)
{
  char path[sizeof knit_the_session.output + 40];
  snprintf(path, sizeof path, "%s/trace-device-%d.knit", knit_the_session.output, device_num);
  uint64_t bit = 1ull << (device_num & 63);
  if (files_made & bit)
    return open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
  if (fd < 0)
    return -1;
  knit_trace_header h;
  memset(&h, 0, sizeof h);
  memcpy(h.magic, KNIT_TRACE_MAGIC, sizeof h.magic);
  h.version = KNIT_TRACE_VERSION;
  h.byte_order = KNIT_BYTE_ORDER_MARK;
  h.tid = 0;
  h.thread_index = (uint32_t)device_num;
  h.clock = 1;
  if (knit_write_all(fd, &h, sizeof h) != 0) {
    close(fd);
    return -1;
  }
  files_made |= bit;
  return fd;
}

void knit_device_track_write(knit_device_track_batch *b)
{
  if (b->count == 0)
    return;
  knit_trace_record records[KNIT_DEVICE_TRACK_BATCH * 3];
  for (unsigned i = 0; i < b->count; i++) {
    const knit_device_op *op = &b->ops[i];
    uint32_t node = op->thread_index == UINT32_MAX ? 0 : op->node;
    records[3 * i] = (knit_trace_record){op->start_ns, node, op->kind};
    records[3 * i + 1] = (knit_trace_record){op->end_ns, op->thread_index, KNIT_TRACE_DEVICE_END};
    records[3 * i + 2] = (knit_trace_record){op->bytes, 0, KNIT_TRACE_DEVICE_BYTES};
  }
  uint64_t n = (uint64_t)b->count * 3;
  pthread_mutex_lock(&files_lock);
  uint64_t made_before = files_made;
  int fd = open_file(b->device_num);
  /* One write per batch: a process killed meanwhile tears at most the
   * last group, which readers drop. */
  bool written = fd >= 0 && knit_write_all(fd, records, n * sizeof records[0]) == 0;
  if (fd >= 0)
    close(fd);
  knit_trace_count_device(written ? n : 0, written ? 0 : n, files_made != made_before);
  pthread_mutex_unlock(&files_lock);
  b->count = 0;
}

void knit_device_track_add(knit_device_track_batch *b, const knit_device_op *op)
{
  if (b->count == KNIT_DEVICE_TRACK_BATCH)
    knit_device_track_write(b);
  b->ops[b->count++] = *op;
}
