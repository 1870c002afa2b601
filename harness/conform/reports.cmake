# `knit conform` from the native tree: a report (md, json, JUnit XML, html
# and the .tsv the summary reads) per runtime and ISA, the mutation score on
# the mocks, the summary table across them, and the command's errors
# (conform_test.sh).  The reports go to KNIT_REPORTS_DIR; ci/check.sh copies
# them to build/reports.  Reports of an ISA whose tree is not built skip.
set(KNIT_REPORTS_DIR ${CMAKE_BINARY_DIR}/reports CACHE PATH "Where knit conform's reports go")
set(CONFORM_TEST ${CMAKE_CURRENT_SOURCE_DIR}/conform_test.sh)
set(CONFORM_KNIT $<TARGET_FILE:knit_cli>)

# libomp:gomp is libomp through its GOMP layer, with the gcc-built programs.
foreach(isa x86_64 aarch64 ppc64le ppc64)
  set(runtimes mock-gomp mock-intel mock-pgi libomp libomp:gomp libgomp)
  # Big-endian ppc64 has no LLVM libomp to check (not a Debian architecture:
  # no package to take it from).
  if(isa STREQUAL "ppc64")
    set(runtimes mock-gomp mock-intel mock-pgi libgomp)
  endif()
  foreach(rt ${runtimes})
    set(extra "")
    # The mutation suite runs on every ISA: the faults are in the mocks'
    # shared core, but what catches them (frames, unwinding, signals under
    # QEMU) is each ISA's own; under QEMU it takes some 16 s per mock.
    if(rt MATCHES "^mock-")
      set(extra --mutations)
    endif()
    string(REPLACE ":" "-" name ${rt})
    knit_add_test(NAME conform.report.${name}.${isa}
      COMMAND ${CONFORM_TEST} report ${CONFORM_KNIT} ${rt} ${isa} ${KNIT_REPORTS_DIR} ${extra}
      TIMEOUT 900 LABELS conform)
    set_tests_properties(conform.report.${name}.${isa} PROPERTIES FIXTURES_SETUP conform_reports)
  endforeach()
endforeach()
knit_add_test(NAME conform.summary
  COMMAND ${CONFORM_TEST} summary ${CONFORM_KNIT} ${KNIT_REPORTS_DIR} LABELS conform)
set_tests_properties(conform.summary PROPERTIES FIXTURES_REQUIRED conform_reports)
knit_add_test(NAME conform.errors COMMAND ${CONFORM_TEST} errors ${CONFORM_KNIT} LABELS conform)
# knit, libknit.so and the helpers installed into a temporary prefix: the
# installed knit conform runs the installed helpers.
knit_add_test(NAME conform.installed
  COMMAND ${CONFORM_TEST} installed ${CONFORM_KNIT} ${CMAKE_COMMAND} ${CMAKE_BINARY_DIR}
  LABELS conform)
