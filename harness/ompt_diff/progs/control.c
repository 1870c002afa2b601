/*
 * omp_control_tool: each command (start, pause, flush, end) and a
 * command of the tool's own, from the initial task, from an implicit task
 * and from an explicit task; the tool's answers are the program's output.
 */
#include <omp.h>
#include <stdio.h>

int answers[8];

int main(void)
{
  answers[0] = omp_control_tool(omp_control_tool_start, 0, NULL);
  answers[1] = omp_control_tool(omp_control_tool_pause, 1, NULL);
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 1)
      answers[2] = omp_control_tool(omp_control_tool_flush, 2, NULL);
#pragma omp single
    {
#pragma omp task
      answers[3] = omp_control_tool(omp_control_tool_start, 3, NULL);
    }
  }
  answers[4] = omp_control_tool(77, 4, NULL);
  answers[5] = omp_control_tool(omp_control_tool_end, 5, NULL);
  printf("control: %d %d %d %d %d %d\n", answers[0], answers[1], answers[2], answers[3], answers[4],
         answers[5]);
  return 0;
}
