# Unit tests of the aarch64 recipe analyzer: recorded code bytes with the
# recipes expected at chosen offsets, and an audit (knit audit's library)
# against the compiler's CFI at every instruction of small shared objects
# cross-compiled from the test's own subject functions at build time, and
# of the aarch64 libc. It runs on any host (the code is only decoded, never
# executed); in a cross tree, where the audit library is not built, the
# audit tests skip.
knit_unit_test(test_aarch64_analyze
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_aarch64_analyze.c
          ${CMAKE_CURRENT_LIST_DIR}/analyze_fixture.c
  LIBS knit_unwind)

if(TARGET test_aarch64_analyze AND TARGET knit_audit)
  target_link_libraries(test_aarch64_analyze PRIVATE knit_audit)
  target_compile_definitions(test_aarch64_analyze PRIVATE KNIT_HAVE_AUDIT)
  # The subjects: test_aarch64_audit_subjects.c compiled by the aarch64 cross
  # compiler, once per code-generation flavour the audit covers.
  # Without the cross compiler the test skips that part.
  find_program(KNIT_AARCH64_GCC aarch64-linux-gnu-gcc)
  if(KNIT_AARCH64_GCC)
    set(subject_dir ${CMAKE_CURRENT_BINARY_DIR}/aarch64_subjects)
    set(subject_src ${CMAKE_CURRENT_LIST_DIR}/test_aarch64_audit_subjects.c)
    set(subject_outputs "")
    foreach(flavour "O2:-O2" "O0:-O0" "O2fp:-O2 -fno-omit-frame-pointer"
                    "Os:-Os" "O3:-O3" "pac:-O2 -mbranch-protection=standard")
      string(REGEX REPLACE ":.*" "" name "${flavour}")
      string(REGEX REPLACE "^[^:]*:" "" flags "${flavour}")
      separate_arguments(flags)
      set(out ${subject_dir}/subjects-${name}.so)
      add_custom_command(OUTPUT ${out}
        COMMAND ${CMAKE_COMMAND} -E make_directory ${subject_dir}
        COMMAND ${KNIT_AARCH64_GCC} ${flags}
                -fasynchronous-unwind-tables -shared -nostdlib -fPIC
                -o ${out} ${subject_src}
        DEPENDS ${subject_src}
        COMMENT "aarch64 audit subjects (${name})" VERBATIM)
      list(APPEND subject_outputs ${out})
    endforeach()
    add_custom_target(test_aarch64_subjects DEPENDS ${subject_outputs})
    add_dependencies(test_aarch64_analyze test_aarch64_subjects)
    target_compile_definitions(test_aarch64_analyze PRIVATE
      KNIT_AARCH64_SUBJECTS="${subject_dir}")
  endif()
endif()
