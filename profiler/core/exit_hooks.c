/* Programs that leave through _exit or _Exit skip atexit handlers (shells
 * do, and so do many servers). knit wraps both, so that their measurement is
 * written all the same. The session's write-out is async-signal-safe, as
 * _exit itself is. A forked child that was never profiled writes nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/session.h"

typedef void (*exit_fn)(int);

__attribute__((noreturn)) static void leave(const char *name, int status)
{
  knit_session_finish("exit");
  exit_fn real = (exit_fn)dlsym(RTLD_NEXT, name);
  if (real)
    real(status);
  /* Not reached; if the C library had no such function, leave anyway. */
  syscall(SYS_exit_group, status);
  for (;;)
    ;
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
  leave("_exit", status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
  leave("_Exit", status);
}
