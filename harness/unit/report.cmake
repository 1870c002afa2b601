# Unit tests of the measurement files (writer and reader) and of the report
# side: folded normalization, golden comparison, symbolization, and the
# tree view's text.

# The writer is part of libknit, so its test builds everywhere, cross builds
# included; the reader is host-only, and so are the round trips through it.
knit_unit_test(test_measure_io
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_measure_io.c
  LIBS knit_cct)
if(TARGET test_measure_io AND NOT CMAKE_CROSSCOMPILING)
  target_link_libraries(test_measure_io PRIVATE knit_report)
  target_compile_definitions(test_measure_io PRIVATE KNIT_TEST_READER=1)
endif()

if(NOT CMAKE_CROSSCOMPILING)
  # Trace files of `knit record -t` (measure/read_trace.c).
  knit_unit_test(test_trace_read
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace_read.c
    LIBS knit_report)
  # Reading a thread or trace file whole: regular files only, never blocking.
  knit_unit_test(test_read_whole_file
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_read_whole_file.c
    LIBS knit_report)
  knit_unit_test(test_folded
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_folded.c
    LIBS knit_report)
  knit_unit_test(test_check
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_check.c
    LIBS knit_report)
  knit_unit_test(test_tree_view
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_tree_view.c
    LIBS knit_report)
  # The bottom-up and flat views, focus and ignore, and the choice of
  # threads, on a profile built in memory.
  knit_unit_test(test_views
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_views.c
    LIBS knit_report)
  # The views' row index and the sums their rows share.
  knit_unit_test(test_row_table
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_row_table.c
    LIBS knit_report)
  # knit diff's contexts and scaling loss, on profiles built in memory.
  knit_unit_test(test_diff
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_diff.c
    LIBS knit_report)
  # Inlined calls as levels of the tree and frames of the folded form.
  knit_unit_test(test_inline_levels
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_inline_levels.c
    LIBS knit_report)
  # Counts near 2^64 saturate, and the report says so.
  knit_unit_test(test_saturation
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_saturation.c
    LIBS knit_report)
  # JSON strings and numbers whatever the names hold, and the string table
  # of the JSON tree.
  knit_unit_test(test_json_write
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_json_write.c
    LIBS knit_report)
  # The JSON tree on a profile built in memory, read back by a strict reader.
  knit_unit_test(test_json_tree
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_json_tree.c
    LIBS knit_report)
  # The pprof export: the protobuf writer against hand-worked bytes, the
  # profile's units, tables and gzip form.
  knit_unit_test(test_protobuf
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_protobuf.c
    LIBS knit_report)
  knit_unit_test(test_pprof
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_pprof.c
    LIBS knit_report)
  # Text from a measurement in its printable form.
  knit_unit_test(test_printable
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_printable.c
    LIBS knit_report)
  # The symbolizer test looks its own functions and lines up, so it is built
  # with line information and without optimization whatever the build type.
  knit_unit_test(test_symbolize
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_symbolize.c
    LIBS knit_report ${CMAKE_DL_LIBS})
  if(TARGET test_symbolize)
    target_compile_options(test_symbolize PRIVATE -g -O0)
  endif()
endif()

# Metrics in reports and goldens, on a blame measurement written with the
# writer and read back (blame_measurement.c).
if(NOT CMAKE_CROSSCOMPILING)
  knit_unit_test(test_report_metrics
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_report_metrics.c
            ${CMAKE_CURRENT_LIST_DIR}/blame_measurement.c
    LIBS knit_report knit_cct)
  knit_unit_test(test_metric_share
    SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_metric_share.c
            ${CMAKE_CURRENT_LIST_DIR}/blame_measurement.c
    LIBS knit_report knit_cct)
endif()
