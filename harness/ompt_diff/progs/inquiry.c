/*
 * The tool's inquiries at places a tool asks them (the tool logs what the
 * entry points answer at every event), omp_control_tool, and at the end the
 * tool's ompt_finalize_tool, through a function of the tool's found by
 * dlsym (ompt_log_finalize_tool): nothing may reach the tool after its
 * finalize, not even the threads' ends at exit.
 */
#include <dlfcn.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int sink[8];

int main(void)
{
  int r = omp_control_tool(omp_control_tool_start, 1, NULL);
#pragma omp parallel num_threads(2)
  {
    sink[omp_get_thread_num()] = omp_get_level();
#pragma omp task
    sink[4]++;
  }
#pragma omp parallel num_threads(2)
  sink[omp_get_thread_num() + 2]++;
  int f = omp_control_tool(omp_control_tool_flush, 77, NULL);
  const char *tool = getenv("OMP_TOOL_LIBRARIES");
  void *h = tool ? dlopen(tool, RTLD_NOW | RTLD_NOLOAD) : NULL;
  void (*finalize)(void) = h ? (void (*)(void))dlsym(h, "ompt_log_finalize_tool") : NULL;
  if (finalize)
    finalize();
  printf("inquiry: %d %d %s\n", r, f, finalize ? "finalized" : "no tool");
  return 0;
}
