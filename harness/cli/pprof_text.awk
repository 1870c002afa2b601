# Reads what `protoc --decode=perftools.profiles.Profile pprof_profile.proto`
# prints of a knit pprof profile and prints it with the string table's
# indexes resolved, one record a line, for the cli tests to grep:
#   type NAME UNIT             each sample type, in order
#   period_type NAME UNIT      period N      default_type NAME
#   time_nanos N
#   comment TEXT
#   mapping ID FILE BUILD_ID
#   function NAME|SYSTEM_NAME|FILE
#   location ID LINES          LINES: FUNCTION:LINE, innermost first, by ' < '
#   sample V1 V2 ... PATH      PATH: folded as `knit report --format=folded`
#                              writes it (see below)
# PATH is each sample's frames outermost first, a location's lines
# outermost first, calls inlined into another frame marked _[i], spaces
# and ';' made '_', and rule (a) of the folded form: the frames before main
# left out, or when there is no main the C library's outermost ones.
function unquote(s) {
  sub(/^[^"]*"/, "", s)
  sub(/"$/, "", s)
  gsub(/\\"/, "\"", s)
  gsub(/\\\\/, "\\", s)
  return s
}
function value(s) {
  sub(/^[^:]*: */, "", s)
  return s
}
function is_system(path) {
  return path ~ /\/(libc\.so|libc-|libpthread\.so|libpthread-|ld-linux|ld64\.so|ld\.so|ld-2\.)[^\/]*$/
}
function frame_text(s) {
  gsub(/[ ;]/, "_", s)
  return s
}
{
  line = $0
  sub(/^ +/, "", line)
}
line ~ /\{$/ {
  name = line
  sub(/ *\{$/, "", name)
  stack[++depth] = name
  if (depth == 1) {
    if (name == "sample_type") types++
    if (name == "sample") { samples++; sample_locs[samples] = ""; sample_vals[samples] = "" }
    if (name == "mapping") mappings++
    if (name == "location") locations++
    if (name == "function") functions++
  } else if (name == "line") {
    lines[locations]++
  }
  next
}
line == "}" { depth--; next }
depth == 0 && line ~ /^string_table:/ { strings[nstrings++] = unquote(line); next }
depth == 0 && line ~ /^period:/ { period = value(line); next }
depth == 0 && line ~ /^time_nanos:/ { time_nanos = value(line); next }
depth == 0 && line ~ /^comment:/ { comments[++ncomments] = value(line); next }
depth == 0 && line ~ /^default_sample_type:/ { default_type = value(line); next }
{
  key = line
  sub(/:.*/, "", key)
  v = value(line)
  where = stack[depth]
  if (where == "sample_type") type_field[types, key] = v
  else if (where == "period_type") period_field[key] = v
  else if (where == "sample" && key == "location_id") sample_locs[samples] = sample_locs[samples] " " v
  else if (where == "sample" && key == "value") sample_vals[samples] = sample_vals[samples] " " v
  else if (where == "mapping") mapping_field[mappings, key] = v
  else if (where == "location" && depth == 1) location_field[locations, key] = v
  else if (where == "line") line_field[locations, lines[locations], key] = v
  else if (where == "function") function_field[functions, key] = v
}
END {
  for (i = 1; i <= types; i++)
    print "type", strings[type_field[i, "type"]], strings[type_field[i, "unit"]]
  print "period_type", strings[period_field["type"]], strings[period_field["unit"]]
  print "period", period
  print "time_nanos", (time_nanos == "" ? 0 : time_nanos)
  print "default_type", strings[default_type]
  for (i = 1; i <= ncomments; i++)
    print "comment", strings[comments[i]]
  for (i = 1; i <= mappings; i++) {
    id = mapping_field[i, "id"]
    mapping_file[id] = strings[mapping_field[i, "filename"]]
    print "mapping", id, mapping_file[id], strings[mapping_field[i, "build_id"]]
  }
  for (i = 1; i <= functions; i++) {
    id = function_field[i, "id"]
    function_name[id] = strings[function_field[i, "name"]]
    print "function " function_name[id] "|" strings[function_field[i, "system_name"]] "|" \
      strings[function_field[i, "filename"]]
  }
  for (i = 1; i <= locations; i++) {
    id = location_field[i, "id"]
    location_index[id] = i
    text = ""
    for (j = 1; j <= lines[i]; j++)
      text = text (j > 1 ? " < " : "") function_name[line_field[i, j, "function_id"]] ":" \
        (line_field[i, j, "line"] == "" ? 0 : line_field[i, j, "line"])
    print "location", id, text
  }
  for (s = 1; s <= samples; s++) {
    n = split(substr(sample_locs[s], 2), ids, " ")
    frames = 0
    main_at = 0
    for (k = n; k >= 1; k--) {
      i = location_index[ids[k]]
      file = mapping_file[location_field[i, "mapping_id"]]
      for (j = lines[i]; j >= 1; j--) {
        name = function_name[line_field[i, j, "function_id"]]
        frame[++frames] = frame_text(name) (j < lines[i] ? "_[i]" : "")
        symbol[frames] = (j == lines[i])
        in_system[frames] = is_system(file)
        if (name == "main" && symbol[frames] && main_at == 0)
          main_at = frames
      }
    }
    first = main_at
    if (first == 0) {
      first = 1
      while (first < frames && in_system[first])
        first++
    }
    path = ""
    for (f = first; f <= frames; f++)
      path = path (f > first ? ";" : "") frame[f]
    print "sample" sample_vals[s], path
  }
}
