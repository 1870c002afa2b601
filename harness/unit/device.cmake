# Target devices: launching contexts and device trace records charged to
# them (ompt/device.c, ompt/device_trace.c), with a fake device.
knit_unit_test(test_device_trace
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_device_trace.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/device.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/device_trace.c
          ${CMAKE_SOURCE_DIR}/profiler/ompt/device_track.c
  LIBS knit_base Threads::Threads)
if(TARGET test_device_trace)
  target_include_directories(test_device_trace PRIVATE ${CMAKE_SOURCE_DIR}/profiler
    ${KNIT_OMPT_INCLUDE})
endif()
