# knit audit: the recipes against the compiler's CFI, on this test, the
# workloads and the host's libraries (host only: the audit is a knit
# command, and the files it reads are the host's).
if(CMAKE_CROSSCOMPILING OR NOT LIBDW_FOUND OR NOT TARGET knit_audit)
  return()
endif()

knit_unit_test(test_audit
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_audit.c
  LIBS knit_audit)
if(TARGET test_audit)
  target_compile_definitions(test_audit PRIVATE
    KNIT_AUDIT_WORKLOAD="$<TARGET_FILE:calls>"
    KNIT_AUDIT_WORKLOAD_LIB="$<TARGET_FILE:knit_wl_calls>"
    KNIT_AUDIT_MOCK_GOMP="$<TARGET_FILE:mockrt_gomp>"
    KNIT_AUDIT_MOCK_INTEL="$<TARGET_FILE:mockrt_intel>"
    KNIT_AUDIT_MOCK_PGI="$<TARGET_FILE:mockrt_pgi>")
  add_dependencies(test_audit calls knit_wl_calls mockrt_gomp mockrt_intel mockrt_pgi)
  set_tests_properties(unit.test_audit PROPERTIES LABELS "unit;audit")
endif()

# The table for the CI log: every library a profiled OpenMP program meets,
# and the workloads. Passes when every file was read, whatever the numbers;
# test_audit holds the numbers to their targets.
set(KNIT_AUDIT_HOST_LIBS "")
foreach(lib libc.so.6 libgomp.so.1 libstdc++.so.6 libomp.so.5)
  foreach(dir /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu /lib64 /usr/lib64)
    if(EXISTS ${dir}/${lib})
      list(APPEND KNIT_AUDIT_HOST_LIBS ${dir}/${lib})
      break()
    endif()
  endforeach()
endforeach()
# The other ISAs' libraries where this machine has them: the cross
# toolchains' sysroots, and clang's libomp in the target roots that
# ci/target-libs.sh fills (.cache/targets), so the log shows every ISA.
foreach(isa aarch64 powerpc64le powerpc64)
  set(knit_root ${isa})
  if(isa STREQUAL "powerpc64le")
    set(knit_root ppc64le)
  elseif(isa STREQUAL "powerpc64")
    set(knit_root ppc64)
  endif()
  foreach(lib libc.so.6 libgomp.so.1 libstdc++.so.6)
    if(EXISTS /usr/${isa}-linux-gnu/lib/${lib})
      list(APPEND KNIT_AUDIT_HOST_LIBS /usr/${isa}-linux-gnu/lib/${lib})
    endif()
  endforeach()
  set(knit_omp ${PROJECT_SOURCE_DIR}/.cache/targets/${knit_root}/root/usr/lib/llvm-14/lib/libomp.so.5)
  if(EXISTS ${knit_omp})
    list(APPEND KNIT_AUDIT_HOST_LIBS ${knit_omp})
  endif()
endforeach()
knit_add_test(NAME audit.libs
  COMMAND $<TARGET_FILE:knit_cli> audit ${KNIT_AUDIT_HOST_LIBS}
          $<TARGET_FILE:calls> $<TARGET_FILE:knit_wl_calls>
          $<TARGET_FILE:parallel_for> $<TARGET_FILE:crash> $<TARGET_FILE:stress>
  LABELS audit)

# Digests of every recipe the analyzers emit for whole files
# (recipe_digest.c): run before and after a change that must leave the
# analyzers' results alone, and compare. The test only checks that it runs.
add_executable(recipe_digest ${CMAKE_CURRENT_LIST_DIR}/recipe_digest.c)
target_include_directories(recipe_digest PRIVATE ${CMAKE_SOURCE_DIR} ${LIBELF_INC})
target_link_libraries(recipe_digest PRIVATE knit_unwind ${LIBELF_LIB})
# A sanitized tree's knit_unwind needs the sanitizer's runtime linked in.
if(KNIT_SANITIZE)
  target_compile_options(recipe_digest PRIVATE ${KNIT_SANITIZE_COMPILE_FLAGS})
  target_link_options(recipe_digest PRIVATE ${KNIT_SANITIZE_FLAGS})
endif()
knit_add_test(NAME audit.recipe_digest
  COMMAND recipe_digest $<TARGET_FILE:calls> $<TARGET_FILE:knit_wl_calls>
  LABELS audit)

# The command at its edges: bad usage is 2, an unreadable file 1. (One
# command per line: CMake would split the script at semicolons.)
knit_add_test(NAME audit.usage
  COMMAND sh -c "
    $0 audit 2>/dev/null
    test $? = 2 || exit 1
    $0 audit --limit=x $0 2>/dev/null
    test $? = 2 || exit 1
    $0 audit --help >/dev/null || exit 1
    $0 audit $1 >/dev/null
    test $? = 1"
    $<TARGET_FILE:knit_cli> ${CMAKE_CURRENT_LIST_DIR}/audit.cmake
  LABELS audit)

# The x86-64 analyzer's test (unwind.cmake, included after this file) holds
# the analyzer to the CFI through this module: link it once that target
# exists, at the end of this directory.
function(knit_audit_link_analyzer_test)
  if(TARGET test_x86_64_analyze)
    target_link_libraries(test_x86_64_analyze PRIVATE knit_audit)
  endif()
endfunction()
cmake_language(DEFER CALL knit_audit_link_analyzer_test)
