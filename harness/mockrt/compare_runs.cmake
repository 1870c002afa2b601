# Runs a program twice and requires equal, non-empty standard output and
# exit status 0 both times (deterministic mode):
#   cmake -DCMD=prog -DEMULATOR=... -P compare_runs.cmake
string(REPLACE "," ";" EMULATOR "${EMULATOR}")
foreach(run 1 2)
  execute_process(COMMAND ${EMULATOR} ${CMD} RESULT_VARIABLE rc OUTPUT_VARIABLE out${run}
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "run ${run} exited with ${rc}: ${err}")
  endif()
endforeach()
message("${out1}")
if(out1 STREQUAL "")
  message(FATAL_ERROR "no event log")
endif()
if(NOT out1 STREQUAL out2)
  message(FATAL_ERROR "the two runs' event logs differ:\n${out2}")
endif()
