# Unit tests of the unwinder: recipe stepping, the x86-64 analyzer (from
# recorded code bytes, and against the compiler's CFI of the test itself),
# and function bounds.
knit_unit_test(test_recipe_apply
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_recipe_apply.c
  LIBS knit_unwind)
# Capstone in a signal handler: decoding never reaches malloc once a
# decoder is open (unwind/decoder.h).
knit_unit_test(test_decoder
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_decoder.c
  LIBS knit_unwind)
if(TARGET test_decoder)
  target_include_directories(test_decoder PRIVATE ${CMAKE_SOURCE_DIR}/profiler ${CAPSTONE_INC})
endif()

# The analyzer test audits its own functions against their CFI, so it is
# always built with frame information and optimization, whatever the build
# type; libdw reads that CFI.
if(LIBDW_FOUND AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  knit_unit_test(test_x86_64_analyze
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_x86_64_analyze.c
            ${CMAKE_CURRENT_LIST_DIR}/analyze_fixture.c
            ${CMAKE_CURRENT_LIST_DIR}/test_x86_64_audit_subjects.c
    LIBS knit_unwind ${LIBDW_LIB} ${CMAKE_DL_LIBS})
  if(TARGET test_x86_64_analyze)
    target_include_directories(test_x86_64_analyze PRIVATE ${LIBDW_INC})
    set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/test_x86_64_audit_subjects.c
      PROPERTIES COMPILE_OPTIONS "-O2;-fasynchronous-unwind-tables")
  endif()
endif()

knit_unit_test(test_bounds
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_bounds.c
  LIBS knit_unwind ${CMAKE_DL_LIBS})
# A big-endian ppc64 program with the linker's call stubs at the start of
# .text and _init's size-0 descriptor (test_bounds' ppc64 stubs case),
# where the cross compiler is there.
find_program(KNIT_PPC64_GCC powerpc64-linux-gnu-gcc)
if(TARGET test_bounds AND KNIT_PPC64_GCC AND NOT CMAKE_CROSSCOMPILING)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/bounds_subject_ppc64)
  add_custom_command(OUTPUT ${out}
    COMMAND ${KNIT_PPC64_GCC} -O2 -o ${out} ${CMAKE_CURRENT_LIST_DIR}/test_loops_subject.c
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/test_loops_subject.c
    COMMENT "Building a ppc64 program for test_bounds")
  add_custom_target(bounds_subject_ppc64 DEPENDS ${out})
  add_dependencies(test_bounds bounds_subject_ppc64)
  target_compile_definitions(test_bounds PRIVATE KNIT_BOUNDS_PPC64_PROGRAM="${out}")
endif()

# Hot/cold split parts (foo.cold): the analyzer from recorded bytes, and
# the bounds' parent scan and the audit on a function of the test itself,
# split by gcc -O2.
if(TARGET knit_audit AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  knit_unit_test(test_x86_64_cold
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_x86_64_cold.c
            ${CMAKE_CURRENT_LIST_DIR}/analyze_fixture.c
            ${CMAKE_CURRENT_LIST_DIR}/test_x86_64_cold_subjects.c
    LIBS knit_audit knit_unwind ${CMAKE_DL_LIBS})
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/test_x86_64_cold_subjects.c
    PROPERTIES COMPILE_OPTIONS "-O2;-fasynchronous-unwind-tables")
endif()

# knit_unwind's walk over cached steps against its general loop, on a live
# stack of the test's own (natively, or under QEMU in a cross tree).
knit_unit_test(test_unwind_walk
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_unwind_walk.c
  LIBS knit_unwind ${CMAKE_DL_LIBS})

# knit_native_regs_here, the capture's registers without getcontext's
# system call: against getcontext, and walked, on a live stack of the
# test's own (natively, or under QEMU in a cross tree).
knit_unit_test(test_regs_here
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_regs_here.c
  LIBS knit_unwind ${CMAKE_DL_LIBS})

# Walk descriptions (what a walk depended on): on live chains of the test's
# own, a description that holds gives the same frames, one from another
# chain at the same depth refuses, a changed word makes it refuse, and the
# registers it leaves out do not change the walk.
knit_unit_test(test_walk_deps
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_walk_deps.c
  LIBS knit_unwind ${CMAKE_DL_LIBS})

# Bounds from a loaded object's .eh_frame_hdr in memory, for code of a
# library loaded since the load map's refresh: the test's own executable
# and libc against the bounds read from their files, and hand-made headers.
knit_unit_test(test_eh_frame_hdr
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_eh_frame_hdr.c
  LIBS knit_unwind ${CMAKE_DL_LIBS})
