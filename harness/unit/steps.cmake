# Unit tests of the step classes: each ISA's decoder of the call before a
# return address, from recorded instruction bytes (host, every tree).
knit_unit_test(test_call_before
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_call_before.c
  LIBS knit_unwind)

# The POWER rows' decoder of the linker's call stubs outside .plt (isa.h:
# plt_stub_slot), from instruction words written out in the test.
knit_unit_test(test_plt_stub
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_plt_stub.c
  LIBS knit_unwind)
