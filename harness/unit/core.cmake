# Unit tests of the tool's core: signal-safe memory and formatting, the
# calling-context tree, event syntax, and which frames belong to a task.
# They run in every tree, the cross trees under QEMU.
knit_unit_test(test_arena SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_arena.c
  LIBS knit_base Threads::Threads)
knit_unit_test(test_cct SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cct.c LIBS knit_cct)
knit_unit_test(test_safe_format SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_safe_format.c
  LIBS knit_base)
knit_unit_test(test_config SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_config.c LIBS knit_base)
knit_unit_test(test_frame_range
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_frame_range.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/frame_range.c
  LIBS knit_unwind)
if(TARGET test_frame_range)
  target_include_directories(test_frame_range PRIVATE ${CMAKE_SOURCE_DIR}/profiler
    ${KNIT_OMPT_INCLUDE})
endif()
foreach(t test_arena test_cct test_safe_format test_config)
  if(TARGET ${t})
    target_include_directories(${t} PRIVATE ${CMAKE_SOURCE_DIR}/profiler)
  endif()
endforeach()
# Undirected blame's count of idle threads (ompt/blame.c).
knit_unit_test(test_blame_idle
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_blame_idle.c ${CMAKE_SOURCE_DIR}/profiler/ompt/blame.c
  LIBS knit_base)
if(TARGET test_blame_idle)
  target_include_directories(test_blame_idle PRIVATE ${CMAKE_SOURCE_DIR}/profiler
    ${KNIT_OMPT_INCLUDE})
endif()
# Region paths captured after the fork: tickets, and the samples kept while
# one is resolved (ompt/region_paths.c).
knit_unit_test(test_region_paths
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_region_paths.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/region_paths.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/path_tree.c
  LIBS knit_cct knit_base)
if(TARGET test_region_paths)
  target_include_directories(test_region_paths PRIVATE ${CMAKE_SOURCE_DIR}/profiler
    ${KNIT_OMPT_INCLUDE})
endif()
# Creation contexts as interned nodes (ompt/path_tree.c).
knit_unit_test(test_path_tree
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_path_tree.c ${CMAKE_SOURCE_DIR}/profiler/ompt/path_tree.c
  LIBS knit_base Threads::Threads)
if(TARGET test_path_tree)
  target_include_directories(test_path_tree PRIVATE ${CMAKE_SOURCE_DIR}/profiler)
endif()
# Tasks' transient creation contexts (ompt/task_contexts.c).
knit_unit_test(test_task_contexts
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_task_contexts.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/task_contexts.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/path_tree.c
  LIBS knit_base Threads::Threads)
if(TARGET test_task_contexts)
  target_include_directories(test_task_contexts PRIVATE ${CMAKE_SOURCE_DIR}/profiler)
endif()
# A path into a thread's tree from the frames it shares with the last one
# (core/thread_paths.c).
knit_unit_test(test_thread_paths
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_thread_paths.c
          ${CMAKE_SOURCE_DIR}/profiler/core/thread_paths.c
  LIBS knit_cct knit_base)
if(TARGET test_thread_paths)
  target_include_directories(test_thread_paths PRIVATE ${CMAKE_SOURCE_DIR}/profiler
    ${KNIT_OMPT_INCLUDE})
endif()
# The per-thread ring of `knit record -t` (core/trace_ring.c).
knit_unit_test(test_trace_ring
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_trace_ring.c ${CMAKE_SOURCE_DIR}/profiler/core/trace_ring.c
  LIBS Threads::Threads)
if(TARGET test_trace_ring)
  target_include_directories(test_trace_ring PRIVATE ${CMAKE_SOURCE_DIR}/profiler)
endif()
