# Unit tests of the step classes: each ISA's decoder of the call before a
# return address, from recorded instruction bytes (host, every tree).
knit_unit_test(test_call_before
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_call_before.c
  LIBS knit_unwind)
