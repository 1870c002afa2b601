# Unit tests of the ppc64le recipe analyzer: recorded code bytes in every
# tree (the cross tree runs them under QEMU), and on the host an audit of
# its recipes against the CFI of a program cross-compiled here and of the
# target's libc.
set(KNIT_PPC64LE_TEST ${CMAKE_CURRENT_LIST_DIR}/test_ppc64le_analyze.c)
set(KNIT_PPC64LE_SUBJECTS ${CMAKE_CURRENT_LIST_DIR}/test_ppc64le_audit_subjects.c)
knit_unit_test(test_ppc64le_analyze
  SOURCES ${KNIT_PPC64LE_TEST} ${CMAKE_CURRENT_LIST_DIR}/analyze_fixture.c LIBS knit_unwind)
if(TARGET test_ppc64le_analyze)
  target_include_directories(test_ppc64le_analyze PRIVATE ${CMAKE_SOURCE_DIR}/profiler)
endif()

# The audit reads ppc64le ELF files on the host with knit audit's library
# (built for the host only). Its subject is test_ppc64le_audit_subjects.c,
# built by the cross compiler at -O2 and -O0; without that
# compiler the audit test exits 77 (skipped).
if(TARGET test_ppc64le_analyze AND TARGET knit_audit AND NOT CMAKE_CROSSCOMPILING)
  target_link_libraries(test_ppc64le_analyze PRIVATE knit_audit)
  target_compile_definitions(test_ppc64le_analyze PRIVATE KNIT_PPC64LE_AUDIT=1)
  find_program(KNIT_PPC64LE_GCC powerpc64le-linux-gnu-gcc)
  if(KNIT_PPC64LE_GCC)
    set(subjects "")
    foreach(opt O2 O0)
      set(out ${CMAKE_CURRENT_BINARY_DIR}/ppc64le_subject_${opt})
      add_custom_command(OUTPUT ${out}
        COMMAND ${KNIT_PPC64LE_GCC} -${opt} -o ${out} ${KNIT_PPC64LE_SUBJECTS}
        DEPENDS ${KNIT_PPC64LE_SUBJECTS}
        COMMENT "Cross-compiling the ppc64le audit subject (-${opt})")
      list(APPEND subjects ${out})
      target_compile_definitions(test_ppc64le_analyze PRIVATE
        KNIT_PPC64LE_SUBJECT_${opt}="${out}")
    endforeach()
    add_custom_target(ppc64le_audit_subjects DEPENDS ${subjects})
    add_dependencies(test_ppc64le_analyze ppc64le_audit_subjects)
  endif()
  knit_add_test(NAME unit.test_ppc64le_audit COMMAND test_ppc64le_analyze audit
    LABELS unit)
endif()

# Switch-shaped code: jump-table cases and more branch targets than the
# analyzer's on-stack table holds (its workspace).
knit_unit_test(test_ppc64le_switch
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_ppc64le_switch.c
          ${CMAKE_CURRENT_LIST_DIR}/analyze_fixture.c
  LIBS knit_unwind)
if(TARGET test_ppc64le_switch)
  target_include_directories(test_ppc64le_switch PRIVATE ${CMAKE_SOURCE_DIR}/profiler)
endif()
