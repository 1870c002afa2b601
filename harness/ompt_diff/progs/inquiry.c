/*
 * The tool's inquiries at places a tool asks them (the tool logs what the
 * entry points answer at every event), omp_control_tool, and at the end the
 * tool's ompt_finalize_tool (asked through omp_control_tool's modifier 77):
 * nothing may reach the tool after its finalize.
 */
#include <omp.h>
#include <stdio.h>

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
  int f = omp_control_tool(omp_control_tool_flush, 77, NULL);
#pragma omp parallel num_threads(2)
  sink[omp_get_thread_num() + 2]++;
  printf("inquiry: %d %d\n", r, f);
  return 0;
}
