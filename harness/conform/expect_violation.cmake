# Runs a test program and judges it by its exit status and its output:
#   cmake -DCMD=prog [-DARGS=a,b] -DEMULATOR=... -DEXPECT=fail|pass -DREGEX=... -P expect_violation.cmake
# EXPECT=fail: the program must exit non-zero AND print REGEX (so a fault
# is caught for the right reason, not by a crash); EXPECT=pass: exit 0 and
# print REGEX.  A wrapper in CMake rather than sh runs wherever ctest does,
# and takes the cross tree's emulator along.
if(NOT DEFINED CMD OR NOT DEFINED EXPECT OR NOT DEFINED REGEX)
  message(FATAL_ERROR "expect_violation.cmake: CMD, EXPECT and REGEX are required")
endif()
# The emulator comes joined by commas (a list would be split into arguments).
string(REPLACE "," ";" EMULATOR "${EMULATOR}")
# So do the program's arguments.
string(REPLACE "," ";" ARGS "${ARGS}")
execute_process(COMMAND ${EMULATOR} ${CMD} ${ARGS}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(EXPECT STREQUAL "fail")
  if(rc EQUAL 0)
    message(FATAL_ERROR "expected a failure, but the program exited 0")
  endif()
elseif(NOT rc EQUAL 0)
  message(FATAL_ERROR "expected success, but the program exited with ${rc}")
endif()
if(NOT all MATCHES "${REGEX}")
  message(FATAL_ERROR "the output does not match '${REGEX}'")
endif()
