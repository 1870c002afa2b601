# The structure analysis (profiler/structure): loop nests from graphs made
# by hand and from test_loops_subject.c as each compiler of this machine
# builds it at -O2 (the host's gcc and clang-14, and the cross compilers of
# the other ISAs, for their machine code on this host).
if(TARGET knit_structure AND NOT CMAKE_CROSSCOMPILING)
  knit_unit_test(test_loops SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_loops.c
    LIBS knit_structure ${LIBDW_LIB} ${LIBELF_LIB})
  set(src ${CMAKE_CURRENT_LIST_DIR}/test_loops_subject.c)
  set(subjects "")
  foreach(cc gcc clang-14 aarch64-linux-gnu-gcc powerpc64le-linux-gnu-gcc powerpc64-linux-gnu-gcc)
    find_program(KNIT_LOOPS_CC_${cc} ${cc})
    if(NOT KNIT_LOOPS_CC_${cc})
      continue()
    endif()
    set(out ${CMAKE_CURRENT_BINARY_DIR}/loops_subject_${cc})
    add_custom_command(OUTPUT ${out}
      COMMAND ${KNIT_LOOPS_CC_${cc}} -O2 -g -o ${out} ${src}
      DEPENDS ${src}
      COMMENT "Building the loop subject with ${cc}")
    list(APPEND subjects ${out})
  endforeach()
  add_custom_target(loops_subjects DEPENDS ${subjects})
  if(TARGET test_loops)
    add_dependencies(test_loops loops_subjects)
    string(REPLACE ";" "\\;" subject_list "${subjects}")
    target_compile_definitions(test_loops PRIVATE "KNIT_LOOPS_SUBJECTS=\"${subject_list}\""
                               "KNIT_LOOPS_SUBJECT_SOURCE=\"${src}\"")
  endif()
endif()

# The structure cache (profiler/structure/structure_cache.h): the loop
# subject built by gcc with a build-id and without one, and the workloads'
# loops program.
if(TARGET knit_structure AND NOT CMAKE_CROSSCOMPILING AND KNIT_LOOPS_CC_gcc)
  knit_unit_test(test_structure_cache SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_structure_cache.c
    LIBS knit_structure knit_unwind ${LIBDW_LIB} ${LIBELF_LIB} ${ZLIB_LIB})
  set(src ${CMAKE_CURRENT_LIST_DIR}/test_loops_subject.c)
  set(with_id ${CMAKE_CURRENT_BINARY_DIR}/cache_subject)
  set(without_id ${CMAKE_CURRENT_BINARY_DIR}/cache_subject_no_build_id)
  add_custom_command(OUTPUT ${with_id} ${without_id}
    COMMAND ${KNIT_LOOPS_CC_gcc} -O2 -g -Wl,--build-id=sha1 -o ${with_id} ${src}
    COMMAND ${KNIT_LOOPS_CC_gcc} -O2 -g -Wl,--build-id=none -o ${without_id} ${src}
    DEPENDS ${src}
    COMMENT "Building the cache subjects")
  add_custom_target(cache_subjects DEPENDS ${with_id} ${without_id})
  if(TARGET test_structure_cache)
    add_dependencies(test_structure_cache cache_subjects loops)
    target_compile_definitions(test_structure_cache PRIVATE
      "KNIT_CACHE_SUBJECT=\"${with_id}\""
      "KNIT_CACHE_SUBJECT_NO_ID=\"${without_id}\""
      "KNIT_CACHE_WORKLOAD=\"$<TARGET_FILE:loops>\"")
  endif()
endif()
