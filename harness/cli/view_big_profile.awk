# Writes a knit JSON profile (docs/json.md) of N nodes, for measuring the
# viewer on a large tree:  awk -v N=100000 -f view_big_profile.awk
# The tree is deterministic: node k's parent is drawn from the nodes before
# it, biased towards the recent ones, so it is both deep and wide; every
# node has a time value of its own, and the inclusive values are summed.
BEGIN {
  if (N < 2) N = 100000
  srand(7)
  names = 4000
  parent[0] = -1
  depth[0] = 0
  for (k = 1; k < N; k++) {
    # The parent: most often one of the last few nodes (a deep path), else
    # any node before (a wide level).
    if (rand() < 0.7) p = k - 1 - int(rand() * 4) ; else p = int(rand() * k)
    if (p < 0) p = 0
    if (depth[p] >= 60) p = parent[p]
    parent[k] = p
    depth[k] = depth[p] + 1
    fn[k] = 1 + int(rand() * names)
    self[k] = int(rand() * 5)
  }
  # The nodes must come in pre-order: children lists, then a walk.
  for (k = N - 1; k >= 1; k--) {
    next_sibling[k] = first[parent[k]]
    first[parent[k]] = k
  }
  top = 0
  stack[top++] = 0
  count = 0
  while (top > 0) {
    k = stack[--top]
    order[count] = k
    newid[k] = count++
    # Push children in reverse so the first child comes out first.
    n = 0
    for (c = first[k]; c != ""; c = next_sibling[c]) kids[n++] = c
    for (i = n - 1; i >= 0; i--) stack[top++] = kids[i]
  }
  for (i = N - 1; i >= 0; i--) {
    k = order[i]
    incl[k] += self[k]
    if (k > 0) incl[parent[k]] += incl[k]
  }
  printf "{\"format\":\"knit-profile\",\"version\":1,\"event\":\"CPUTIME\",\"event_text\":\"CPUTIME every 1 ms\","
  printf "\"period_ns\":1000000,\"unit\":\"ms\",\"samples\":%d,\"periods\":%d,\"threads\":8,\"saturated\":false,", incl[0], incl[0]
  printf "\"dir\":\"generated\",\"log\":null,\"tree\":{\"lines\":false,\"all_frames\":false,\"fold\":false,"
  printf "\"inline\":true,\"sort\":\"incl\",\"sort_metric\":0,\"min_percent\":0},\n"
  printf "\"metrics\":[{\"name\":\"CPUTIME\",\"unit\":\"ms\",\"description\":\"charged where each sample was taken\",\"total\":%d},\n", incl[0]
  printf "{\"name\":\"OMP_IDLE\",\"unit\":\"ms\",\"description\":\"idle\",\"total\":0},\n"
  printf "{\"name\":\"OMP_MUTEX_WAIT\",\"unit\":\"ms\",\"description\":\"wait\",\"total\":0},\n"
  printf "{\"name\":\"OMP_MUTEX_BLAME\",\"unit\":\"ms\",\"description\":\"blame\",\"total\":0}],\n"
  printf "\"node_fields\":[\"parent\",\"kind\",\"function\",\"raw\",\"module\",\"file\",\"line\",\"sites\",\"recursion\",\"values\"],\n"
  printf "\"nodes\":[\n[-1,\"root\",0,-1,-1,-1,0,0,1,[%d,0,0,0,0,0,0,0]]", incl[0]
  for (i = 1; i < N; i++) {
    k = order[i]
    printf ",\n[%d,\"function\",%d,-1,%d,%d,%d,0,1,[%d,%d,0,0,0,0,0,0]]", newid[parent[k]], fn[k],
      names + 1, names + 2, 10 + k % 500, incl[k], self[k]
  }
  printf "],\n\"strings\":[\"<root>\""
  for (i = 1; i <= names; i++) printf ",\"function_%d\"", i
  printf ",\"/usr/bin/generated\",\"generated.c\"]}\n"
}
