# Symbolization of real programs: small fixture programs (fixtures/) built
# the way users build theirs, by every compiler knit meets, and the tests
# that name their functions and lines through knit's symbolizer
# (test_symbolize_files) and make names readable (test_names).
#
#   lines.c    C call sites:      gcc and clang-14, -O2, DWARF 5 and DWARF 4;
#                                 the clang build once more with its debug
#                                 information split off by build ID
#   names.cpp  C++ names:         g++ and clang++-14 -fopenmp -O2, DWARF 5
#                                 and (clang++) DWARF 4
#   names.f90  Fortran names:     gfortran -fopenmp -O2 -fno-inline
#   constructs.c  OpenMP constructs (test_construct_names): gcc and
#                 clang-14 -fopenmp -O2 -g, and clang-14 -O0 -g; clang-14
#                 -O2 -g for ppc64le and ppc64 with the cross gcc linking
#   inline.c   inlined calls:     gcc and clang-14, -O2 (test_inline_scopes)
#
# clang writes no .debug_aranges: its builds are the ones whose lines knit
# once missed. A compiler the machine lacks leaves its fixtures out, and
# the test skips them, saying so.
if(CMAKE_CROSSCOMPILING OR NOT TARGET knit_report)
  return()
endif()

knit_unit_test(test_names
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_names.c
  LIBS knit_report)

set(fixture_src ${CMAKE_CURRENT_LIST_DIR}/fixtures)
set(fixture_dir ${CMAKE_BINARY_DIR}/fixtures)
file(MAKE_DIRECTORY ${fixture_dir})
set(fixture_outputs "")

# fixture(OUT COMPILER SOURCE FLAGS...): fixtures/OUT from SOURCE.
function(fixture out compiler src)
  set(path ${fixture_dir}/${out})
  add_custom_command(OUTPUT ${path}
    COMMAND ${compiler} ${ARGN} ${fixture_src}/${src} -o ${path}
    DEPENDS ${fixture_src}/${src}
    COMMENT "fixture ${out}"
    VERBATIM)
  set(fixture_outputs ${fixture_outputs} ${path} PARENT_SCOPE)
endfunction()

find_program(KNIT_FIXTURE_CLANG NAMES clang-14)
find_program(KNIT_FIXTURE_CLANGXX NAMES clang++-14)
find_program(KNIT_FIXTURE_GXX NAMES g++)
find_program(KNIT_FIXTURE_GFORTRAN NAMES gfortran)

fixture(lines_gcc ${CMAKE_C_COMPILER} lines.c -O2 -g)
fixture(lines_gcc_dwarf4 ${CMAKE_C_COMPILER} lines.c -O2 -gdwarf-4)
fixture(inline_gcc ${CMAKE_C_COMPILER} inline.c -O2 -g)
if(KNIT_FIXTURE_CLANG)
  fixture(lines_clang ${KNIT_FIXTURE_CLANG} lines.c -O2 -g)
  fixture(lines_clang_dwarf4 ${KNIT_FIXTURE_CLANG} lines.c -O2 -gdwarf-4)
  fixture(inline_clang ${KNIT_FIXTURE_CLANG} inline.c -O2 -g)
  # The clang build without its DWARF and symbols, which go to
  # fixtures/debug/.build-id/, where the test points the symbolizer.
  add_custom_command(OUTPUT ${fixture_dir}/lines_clang_stripped
    COMMAND sh ${fixture_src}/split_debug.sh ${fixture_dir}/lines_clang
            ${fixture_dir}/lines_clang_stripped ${fixture_dir}/debug
    DEPENDS ${fixture_dir}/lines_clang ${fixture_src}/split_debug.sh
    COMMENT "fixture lines_clang_stripped"
    VERBATIM)
  list(APPEND fixture_outputs ${fixture_dir}/lines_clang_stripped)
endif()
if(KNIT_FIXTURE_GXX)
  fixture(names_gxx ${KNIT_FIXTURE_GXX} names.cpp -fopenmp -O2 -g)
endif()
if(KNIT_FIXTURE_CLANGXX)
  fixture(names_clangxx ${KNIT_FIXTURE_CLANGXX} names.cpp -fopenmp -O2 -g)
  fixture(names_clangxx_dwarf4 ${KNIT_FIXTURE_CLANGXX} names.cpp -fopenmp -O2 -gdwarf-4)
endif()
if(KNIT_FIXTURE_GFORTRAN)
  fixture(names_fortran ${KNIT_FIXTURE_GFORTRAN} names.f90 -fopenmp -O2 -g -fno-inline
          -J ${fixture_dir})
endif()
fixture(constructs_gcc ${CMAKE_C_COMPILER} constructs.c -fopenmp -O2 -g)
if(KNIT_FIXTURE_CLANG)
  fixture(constructs_clang ${KNIT_FIXTURE_CLANG} constructs.c -fopenmp -O2 -g)
  fixture(constructs_clang_O0 ${KNIT_FIXTURE_CLANG} constructs.c -fopenmp -O0 -g)
endif()
# constructs.c by clang-14 -O2 for POWER (test_construct_names ppc64le |
# ppc64): there a call of the runtime goes to a linker stub among the code,
# not to .plt. clang compiles for the target and the cross gcc links,
# leaving the runtime's entries undefined (no target libomp here; the stubs
# and the .rela.plt entries are the ones a link against libomp makes), then
# a copy without symbols, whose TOC pointer must come from the sections.
foreach(isa ppc64le ppc64)
  if(isa STREQUAL "ppc64le")
    set(triplet powerpc64le-linux-gnu)
  else()
    set(triplet powerpc64-linux-gnu)
  endif()
  find_program(KNIT_FIXTURE_GCC_${isa} NAMES ${triplet}-gcc)
  find_program(KNIT_FIXTURE_STRIP_${isa} NAMES ${triplet}-strip)
  if(NOT KNIT_FIXTURE_CLANG OR NOT KNIT_FIXTURE_GCC_${isa} OR NOT KNIT_FIXTURE_STRIP_${isa})
    continue()
  endif()
  # A cross gcc without the target's libc (libc6-dev-*-cross) cannot link:
  # it names crt1.o without finding it.
  execute_process(COMMAND ${KNIT_FIXTURE_GCC_${isa}} -print-file-name=crt1.o
    OUTPUT_VARIABLE crt1 OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT IS_ABSOLUTE "${crt1}" OR NOT EXISTS "${crt1}")
    continue()
  endif()
  set(out ${fixture_dir}/constructs_clang_${isa})
  add_custom_command(OUTPUT ${out} ${out}_stripped
    COMMAND ${KNIT_FIXTURE_CLANG} --target=${triplet} -fopenmp -O2 -g -c
            ${fixture_src}/constructs.c -o ${out}.o
    COMMAND ${KNIT_FIXTURE_GCC_${isa}} ${out}.o -o ${out} -Wl,--unresolved-symbols=ignore-all
    COMMAND ${KNIT_FIXTURE_STRIP_${isa}} ${out} -o ${out}_stripped
    DEPENDS ${fixture_src}/constructs.c
    COMMENT "fixture constructs_clang_${isa}"
    VERBATIM)
  list(APPEND fixture_outputs ${out} ${out}_stripped)
endforeach()
add_custom_target(symbol_fixtures ALL DEPENDS ${fixture_outputs})

knit_unit_test(test_symbolize_files
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_symbolize_files.c ${CMAKE_CURRENT_LIST_DIR}/fixture_sites.c
  LIBS knit_report)
if(TARGET test_symbolize_files)
  add_dependencies(test_symbolize_files symbol_fixtures)
  target_compile_definitions(test_symbolize_files PRIVATE
    KNIT_FIXTURE_DIR="${fixture_dir}" KNIT_FIXTURE_SRC="${fixture_src}")
endif()

knit_unit_test(test_construct_names
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_construct_names.c
  LIBS knit_report)
if(TARGET test_construct_names)
  add_dependencies(test_construct_names symbol_fixtures)
  target_compile_definitions(test_construct_names PRIVATE
    KNIT_FIXTURE_DIR="${fixture_dir}" KNIT_FIXTURE_SRC="${fixture_src}")
  target_link_libraries(test_construct_names PRIVATE ${LIBELF_LIB})
  # The POWER builds, one entry each; a missing compiler leaves the fixture
  # out, and the entry says so and exits 77.
  foreach(isa ppc64le ppc64)
    knit_add_test(NAME unit.test_construct_names_${isa}
      COMMAND test_construct_names ${isa} LABELS unit)
  endforeach()
endif()

knit_unit_test(test_inline_scopes
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_inline_scopes.c ${CMAKE_CURRENT_LIST_DIR}/fixture_sites.c
  LIBS knit_report)
if(TARGET test_inline_scopes)
  add_dependencies(test_inline_scopes symbol_fixtures)
  target_compile_definitions(test_inline_scopes PRIVATE
    KNIT_FIXTURE_DIR="${fixture_dir}" KNIT_FIXTURE_SRC="${fixture_src}")
endif()
