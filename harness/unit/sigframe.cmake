# Unit tests of the signal-trampoline steps: every ISA's from recorded code
# bytes and synthetic signal frames (on any host), and the tree's own ISA
# with real signals (natively, or under QEMU in a cross tree), which checks
# the frame layouts against what the kernel or QEMU really writes.
knit_unit_test(test_sigreturn
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_sigreturn.c
  LIBS knit_unwind ${CMAKE_DL_LIBS})
