/* Reading a measurement directory: every thread-*.knit file, and the last
 * SUMMARY line of knit.log. A file that cannot be read is listed with its
 * reason and the others still load, so one damaged thread does not hide the
 * rest of a run. */
#include "measure/read_file.h"

#include "measure/read_printable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int has_suffix(const char *s, const char *suffix)
{
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int is_thread_file(const char *name)
{
  return strncmp(name, "thread-", 7) == 0 && has_suffix(name, ".knit");
}

static int compare_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_threads(const void *a, const void *b)
{
  const knit_thread_file *x = a, *y = b;
  if (x->header.thread_index != y->header.thread_index)
    return x->header.thread_index < y->header.thread_index ? -1 : 1;
  if (x->header.tid != y->header.tid)
    return x->header.tid < y->header.tid ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* The names of the thread files in dir, sorted; NULL with errno on failure. */
static char **list_thread_files(const char *dir, size_t *count)
{
  DIR *d = opendir(dir);
  if (d == NULL)
    return NULL;
  size_t n = 0, cap = 16;
  char **names = malloc(cap * sizeof *names);
  struct dirent *e;
  while (names != NULL && (e = readdir(d)) != NULL) {
    if (!is_thread_file(e->d_name))
      continue;
    if (n == cap) {
      cap *= 2;
      char **grown = realloc(names, cap * sizeof *names);
      if (grown == NULL)
        break;
      names = grown;
    }
    names[n++] = strdup(e->d_name);
  }
  closedir(d);
  if (names != NULL)
    qsort(names, n, sizeof *names, compare_names);
  *count = n;
  return names;
}

/* Keeps s (without its line end), printable, in *slot, in place of what
 * was there. */
static void keep_line(char **slot, char *s)
{
  s[strcspn(s, "\r\n")] = '\0';
  free(*slot);
  *slot = knit_printable_dup(s);
}

/* Adds the device a line "ompt: device N (TYPE): ..." names, "device N
 * (TYPE)", to m's list of devices, once each (a device's lines are
 * several: its initialization, its code loaded). */
static void keep_device(knit_measurement *m, const char *s)
{
  const char *close = strstr(s, "): ");
  if (close == NULL || strchr(s, '(') == NULL || strchr(s, '(') > close)
    return;
  size_t len = (size_t)(close + 1 - s);
  /* Already named: the list is "device N (TYPE), device M (TYPE)". */
  for (const char *at = m->devices; at != NULL; at = strstr(at + 1, ", device ")) {
    const char *name = at == m->devices ? at : at + 2;
    if (strncmp(name, s, len) == 0 && (name[len] == '\0' || name[len] == ','))
      return;
  }
  size_t have = m->devices != NULL ? strlen(m->devices) : 0;
  /* A log with a thousand devices names the first few: the line stays a
   * line. */
  if (have > 400)
    return;
  char *grown = realloc(m->devices, have + len + 3);
  if (grown == NULL)
    return;
  if (have > 0) {
    memcpy(grown + have, ", ", 2);
    have += 2;
  }
  memcpy(grown + have, s, len);
  grown[have + len] = '\0';
  m->devices = grown;
}

/* The last lines of dir/knit.log that start with "SUMMARY", "end: " and
 * "unwritten: " (after any leading spaces) go into m's summary, ending and
 * unwritten, without their newlines; NULL when there is none. log_skipped
 * is set when knit.log is there but is no regular file. */
static void read_log(const char *dir, knit_measurement *m)
{
  int *skipped = &m->log_skipped;
  size_t plen = strlen(dir) + sizeof "/knit.log";
  char *path = malloc(plen);
  if (path == NULL)
    return;
  snprintf(path, plen, "%s/knit.log", dir);
  /* As for thread files (knit_thread_file_read): a log that is a FIFO or
   * a device would block the report, so only a regular file is read. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  free(path);
  if (fd < 0)
    return;
  struct stat st;
  FILE *f = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || (f = fdopen(fd, "r")) == NULL) {
    *skipped = 1;
    close(fd);
    return;
  }
  m->log_read = 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  /* The lines name the program and its paths: printable, they are shown as
   * they are. */
  while ((n = getline(&line, &cap, f)) >= 0) {
    char *s = line + strspn(line, " \t");
    if (strncmp(s, "SUMMARY", 7) == 0)
      keep_line(&m->summary, s);
    else if (strncmp(s, "end: ", 5) == 0)
      keep_line(&m->ending, s + 5);
    else if (strncmp(s, "unwritten: ", 11) == 0)
      keep_line(&m->unwritten, s + 11);
    else if (strncmp(s, "ompt: device ", 13) == 0)
      keep_device(m, s + 6);
  }
  /* Named by the program's runtime: printable, as the other lines. */
  if (m->devices != NULL) {
    char *printable = knit_printable_dup(m->devices);
    free(m->devices);
    m->devices = printable;
  }
  free(line);
  fclose(f);
}

/* Lists a file that could not be read. Its name is the directory's, which
 * anyone could have chosen, so it is kept in its printable form. */
static void add_failure(knit_measurement *m, const char *name, const char *reason)
{
  char **grown = realloc(m->failures, (m->failed_count + 1) * sizeof *grown);
  if (grown == NULL)
    return;
  m->failures = grown;
  size_t len = knit_printable_length(name) + strlen(reason) + 3;
  char *text = malloc(len);
  if (text == NULL)
    return;
  size_t used = strlen(knit_printable(name, text, len));
  snprintf(text + used, len - used, ": %s", reason);
  m->failures[m->failed_count++] = text;
}

int knit_measurement_read(const char *dir, knit_measurement *m, char *err, size_t errlen)
{
  memset(m, 0, sizeof *m);
  size_t count = 0;
  errno = 0;
  char **names = list_thread_files(dir, &count);
  char shown[512]; /* the directory as messages name it */
  if (names == NULL) {
    int error = errno ? errno : ENOMEM;
    snprintf(err, errlen, "cannot read measurement directory %s: %s",
             knit_printable(dir, shown, sizeof shown), strerror(error));
    return -1;
  }
  if (count == 0) {
    snprintf(err, errlen,
             "%s holds no thread-*.knit files: not a knit measurement "
             "directory, or the run wrote nothing",
             knit_printable(dir, shown, sizeof shown));
    free(names);
    return -1;
  }
  m->dir = strdup(dir);
  m->threads = calloc(count, sizeof *m->threads);
  if (m->dir == NULL || m->threads == NULL) {
    snprintf(err, errlen, "out of memory");
    for (size_t i = 0; i < count; i++)
      free(names[i]);
    free(names);
    knit_measurement_free(m);
    return -1;
  }
  for (size_t i = 0; i < count; i++) {
    if (names[i] == NULL)
      continue;
    size_t plen = strlen(dir) + strlen(names[i]) + 2;
    char *path = malloc(plen);
    char reason[512];
    if (path == NULL) {
      add_failure(m, names[i], "out of memory");
    } else {
      snprintf(path, plen, "%s/%s", dir, names[i]);
      if (knit_thread_file_read(path, &m->threads[m->thread_count], reason, sizeof reason) == 0)
        m->thread_count++;
      else
        add_failure(m, names[i], reason);
      free(path);
    }
    free(names[i]);
  }
  free(names);
  qsort(m->threads, m->thread_count, sizeof *m->threads, compare_threads);
  for (size_t i = 0; i < m->thread_count; i++) {
    if (i == 0) {
      knit_printable(m->threads[0].event, m->event, sizeof m->event);
      m->period = m->threads[0].header.period;
    } else if (strcmp(m->threads[0].event, m->threads[i].event) != 0) {
      m->mixed_events = 1;
    }
  }
  read_log(dir, m);
  return 0;
}

void knit_measurement_free(knit_measurement *m)
{
  for (size_t i = 0; i < m->thread_count; i++)
    knit_thread_file_free(&m->threads[i]);
  free(m->threads);
  for (size_t i = 0; i < m->failed_count; i++)
    free(m->failures[i]);
  free(m->failures);
  free(m->summary);
  free(m->ending);
  free(m->unwritten);
  free(m->devices);
  free(m->dir);
  memset(m, 0, sizeof *m);
}

int knit_summary_u64(const char *summary, const char *key, uint64_t *out)
{
  size_t klen = strlen(key);
  const char *s = summary;
  while (s != NULL && *s != '\0') {
    s += strspn(s, " \t");
    if (strncmp(s, key, klen) == 0 && s[klen] == '=') {
      const char *digits = s + klen + 1;
      char *end;
      errno = 0;
      unsigned long long v = strtoull(digits, &end, 10);
      if (end == digits || errno != 0 || (*end != '\0' && *end != ' ' && *end != '\t'))
        return -1;
      *out = v;
      return 0;
    }
    s += strcspn(s, " \t");
  }
  return -1;
}
