/* The newest measurement directory here; see newest_measurement.h. */
#include "cli/newest_measurement.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int knit_newest_measurement(char *buf, size_t len)
{
  if (len < 3)
    return -1;
  DIR *d = opendir(".");
  if (d == NULL)
    return -1;
  struct timespec best = {0, 0};
  int found = 0;
  buf[0] = '\0';
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    struct stat st;
    if (strncmp(e->d_name, "knit-", 5) != 0 || stat(e->d_name, &st) != 0 || !S_ISDIR(st.st_mode))
      continue;
    int newer = !found || st.st_mtim.tv_sec > best.tv_sec ||
                (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec > best.tv_nsec) ||
                (st.st_mtim.tv_sec == best.tv_sec && st.st_mtim.tv_nsec == best.tv_nsec &&
                 strcmp(e->d_name, buf + 2) > 0);
    if (newer && strlen(e->d_name) + 3 <= len) {
      snprintf(buf, len, "./%s", e->d_name);
      best = st.st_mtim;
      found = 1;
    }
  }
  closedir(d);
  return found ? 0 : -1;
}
