/* The program bench_proxy_app times: a small proxy application shaped like
 * an explicit Lagrangian shock-hydrodynamics code (a Sedov blast in a cube
 * of hexahedral elements, the structure LULESH made familiar, written
 * here from scratch and much simplified). Built by g++ -fopenmp (the GOMP
 * ABI) and run on whichever libgomp.so.1 LD_LIBRARY_PATH names (GNU
 * libgomp, or LLVM's libomp through its GOMP layer), with or without knit
 * preloaded.
 *
 *   bench_proxy_app_child SIZE STEPS
 *
 * SIZE elements along each edge of the cube (SIZE^3 elements), STEPS time
 * steps. Each step runs 34 parallel loops (`#pragma omp parallel for`, a
 * few with min, max or + reductions) over node and element arrays, from
 * a dozen functions: some templates (over the equation of state, over an
 * axis), some handing a lambda to a template that holds the loop, some
 * calling lambdas inside the loop's body. That is the point of the
 * program: a profiler attached to it meets what it meets in real codes
 * (many short parallel loops a step, C++ frames, outlined bodies of
 * template instances), not one hot loop.
 *
 * It prints the seconds spent in the time-step loop, a line "checksum H"
 * (a hash of the bits of the final state: positions, velocities, energies,
 * pressures, volumes, the time and the counters) and the total energy.
 * The checksum must not depend on the runtime, the team size or a tool:
 * every loop computes each element or node on its own, nodes sum their
 * elements' corner forces in a fixed order (no scattered, racing
 * additions), the only floating-point reductions that steer the run are
 * minima and maxima (exact in any order), and the + reductions that feed
 * the checksum count integers. The energy sums, + reductions over doubles
 * whose rounding depends on how the team split the work, are printed but
 * kept out of the checksum.
 */
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

/* Constants of the scheme (LULESH's values where it has one). */
constexpr double kEdge = 1.125;           /* the cube's edge */
constexpr double kHourglass = 3.0;        /* hourglass coefficient */
constexpr double kQStop = 1.0e12;         /* a q above this means the run broke */
constexpr double kQLinear = 0.5;          /* linear artificial viscosity */
constexpr double kQQuadratic = 2.0 / 3.0; /* quadratic artificial viscosity */
constexpr double kMonoQMult = 2.0;        /* the monotonic limiter's multiplier */
constexpr double kMonoQMaxSlope = 1.0;
constexpr double kQQC2 = 64.0 * kQQuadratic * kQQuadratic; /* q's share of the Courant limit */
constexpr double kVolumeCut = 1.0e-10;
constexpr double kVelocityCut = 1.0e-7;
constexpr double kEnergyCut = 1.0e-7;
constexpr double kPressureCut = 1.0e-7;
constexpr double kQCut = 1.0e-7;
constexpr double kEosVMin = 1.0e-9;
constexpr double kEosVMax = 1.0e9;
constexpr double kDvovMax = 0.1; /* the largest relative volume change a step */
constexpr double kDtMax = 1.0e-2;
constexpr double kDtGrowthMax = 1.2;
constexpr double kDtGrowthMin = 1.1; /* below this growth dt stays as it is */
constexpr double kTiny = 1.0e-36;
constexpr int kRegions = 3;

struct Vec3 {
  double x, y, z;
};

inline Vec3 operator+(Vec3 a, Vec3 b)
{
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}

inline Vec3 operator-(Vec3 a, Vec3 b)
{
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}

inline Vec3 operator-(Vec3 a)
{
  return {-a.x, -a.y, -a.z};
}

inline Vec3 operator*(double s, Vec3 a)
{
  return {s * a.x, s * a.y, s * a.z};
}

inline double dot(Vec3 a, Vec3 b)
{
  return a.x * b.x + a.y * b.y + a.z * b.z;
}

inline Vec3 cross(Vec3 a, Vec3 b)
{
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/* The two equations of state; the regions' code is a template over them,
 * so that each region's loops are an instance of their own, as a
 * multi-material code's are. e is internal energy per reference volume,
 * v the volume relative to the reference one. */
struct IdealGas {
  double gamma;
  double pressure(double e, double v) const { return (gamma - 1.0) * e / v; }
  double sound_speed2(double p, double v) const { return gamma * p * v; }
};

struct StiffenedGas {
  double gamma, p_inf;
  double pressure(double e, double v) const { return (gamma - 1.0) * e / v - gamma * p_inf; }
  double sound_speed2(double p, double v) const { return gamma * (p + p_inf) * v; }
};

/* A region: the elements of one material, not contiguous (blocks of the
 * cube in a three-colour pattern), so its loops gather and scatter as a
 * real code's material loops do, and scratch arrays for its energy
 * update, one entry per element of the region. */
struct Region {
  std::vector<int> elems;
  std::vector<double> v_new, v_half, delvc, e_old, p_old, q_old, ql, qq, e_new, p_half, q_new,
      p_new;

  void resize_scratch()
  {
    for (auto *a : {&v_new, &v_half, &delvc, &e_old, &p_old, &q_old, &ql, &qq, &e_new, &p_half,
                    &q_new, &p_new})
      a->assign(elems.size(), 0.0);
  }
};

/* The mesh and its fields. Nodes (n+1)^3 and elements n^3, numbered x
 * fastest; an element's corners 0-3 are its lower face counter-clockwise
 * seen from above, 4-7 the upper one. The planes x=0, y=0 and z=0 are
 * planes of symmetry (the blast sits in that corner), the others free. */
struct Domain {
  int n = 0, num_elem = 0, num_node = 0;
  /* Nodes. */
  std::vector<double> x, y, z, xd, yd, zd, xdd, ydd, zdd, fx, fy, fz, nodal_mass;
  std::vector<int> corner_start, corner_list; /* node -> its elements' corners, elem*8+corner */
  std::vector<int> symm_x, symm_y, symm_z;    /* the nodes on each plane of symmetry */
  /* Elements. */
  std::vector<int> nodelist; /* 8 a element */
  std::vector<int> lxim, lxip, letam, letap, lzetam, lzetap; /* neighbours; -1: free surface */
  std::vector<double> dvdx, dvdy, dvdz; /* the volume's derivatives by corner, 8 a element */
  std::vector<double> cfx, cfy, cfz;    /* forces on the corners, 8 a element */
  std::vector<double> e, p, q, ql, qq, v, vnew, vnewc, volo, delv, vdov, arealg, ss, elem_mass;
  std::vector<double> dxx, dyy, dzz; /* the strain rate's deviator */
  std::vector<double> delv_xi, delv_eta, delv_zeta, delx_xi, delx_eta, delx_zeta;
  Region regions[kRegions];
  IdealGas gas_a{5.0 / 3.0}, gas_b{1.4};
  StiffenedGas liquid{1.6, 1.0};
  /* The clock. */
  double time = 0, dt = 0, dt_courant = 1e20, dt_hydro = 1e20;
  int cycle = 0;
  /* Counted by + reductions over integers: part of the checksum. */
  long long volume_clamps = 0, moving_elems = 0;
};

/* The element's corners, gathered from a node array triple. */
inline void gather_corners(const Domain &d, int el, const std::vector<double> &ax,
                           const std::vector<double> &ay, const std::vector<double> &az,
                           Vec3 (&c)[8])
{
  const int *nodes = &d.nodelist[8 * (std::size_t)el];
  for (int k = 0; k < 8; k++)
    c[k] = {ax[nodes[k]], ay[nodes[k]], az[nodes[k]]};
}

/* The six tetrahedra around the diagonal from corner 0 to corner 6: the
 * hexahedron's volume is theirs, and so are its derivatives, which makes
 * the pressure forces exactly the work the energy equation charges. */
constexpr int kTets[6][4] = {{0, 1, 2, 6}, {0, 2, 3, 6}, {0, 3, 7, 6},
                             {0, 7, 4, 6}, {0, 4, 5, 6}, {0, 5, 1, 6}};

/* The volume of the hexahedron c, handing grad(corner, dV/dcorner) each
 * tetrahedron's share of the derivatives (a no-op lambda when only the
 * volume is wanted: the compiler drops that work). */
template <class Grad>
inline double hex_volume(const Vec3 (&c)[8], Grad &&grad)
{
  double six_vol = 0;
  for (const auto &t : kTets) {
    Vec3 a = c[t[0]], b = c[t[1]] - a, cc = c[t[2]] - a, dd = c[t[3]] - a;
    Vec3 gb = cross(cc, dd), gc = cross(dd, b), gd = cross(b, cc);
    six_vol += dot(b, gb);
    grad(t[1], (1.0 / 6.0) * gb);
    grad(t[2], (1.0 / 6.0) * gc);
    grad(t[3], (1.0 / 6.0) * gd);
    grad(t[0], (-1.0 / 6.0) * (gb + gc + gd));
  }
  return six_vol / 6.0;
}

/* Runs body(k) for k in [0, count) across the team. The loops written as
 * a lambda handed to it show in a profile as the lambda called from the
 * outlined body of one instance of this template, as code on a Kokkos- or
 * RAJA-like layer does. */
template <class Body>
void parallel_for(int count, Body &&body)
{
#pragma omp parallel for
  for (int k = 0; k < count; k++)
    body(k);
}

/* ---- Set-up (not timed). ---- */

void build_mesh(Domain &d, int n)
{
  d.n = n;
  int np = n + 1;
  d.num_elem = n * n * n;
  d.num_node = np * np * np;
  std::size_t ne = (std::size_t)d.num_elem, nn = (std::size_t)d.num_node;
  for (auto *a : {&d.x, &d.y, &d.z, &d.xd, &d.yd, &d.zd, &d.xdd, &d.ydd, &d.zdd, &d.fx, &d.fy,
                  &d.fz, &d.nodal_mass})
    a->assign(nn, 0.0);
  for (auto *a : {&d.dvdx, &d.dvdy, &d.dvdz, &d.cfx, &d.cfy, &d.cfz})
    a->assign(8 * ne, 0.0);
  for (auto *a : {&d.e, &d.p, &d.q, &d.ql, &d.qq, &d.v, &d.vnew, &d.vnewc, &d.volo, &d.delv,
                  &d.vdov, &d.arealg, &d.ss, &d.elem_mass, &d.dxx, &d.dyy, &d.dzz, &d.delv_xi,
                  &d.delv_eta, &d.delv_zeta, &d.delx_xi, &d.delx_eta, &d.delx_zeta})
    a->assign(ne, 0.0);
  for (auto *a : {&d.lxim, &d.lxip, &d.letam, &d.letap, &d.lzetam, &d.lzetap})
    a->assign(ne, -1);
  d.nodelist.assign(8 * ne, 0);

  double h = kEdge / n;
  for (int k = 0; k < np; k++)
    for (int j = 0; j < np; j++)
      for (int i = 0; i < np; i++) {
        int node = i + np * (j + np * k);
        d.x[node] = h * i;
        d.y[node] = h * j;
        d.z[node] = h * k;
        if (i == 0)
          d.symm_x.push_back(node);
        if (j == 0)
          d.symm_y.push_back(node);
        if (k == 0)
          d.symm_z.push_back(node);
      }
  /* Blocks of about a sixth of the edge, coloured by region in turn. */
  int block = std::max(1, n / 6);
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int el = i + n * (j + n * k);
        int base = i + np * (j + np * k);
        int *nodes = &d.nodelist[8 * (std::size_t)el];
        nodes[0] = base;
        nodes[1] = base + 1;
        nodes[2] = base + 1 + np;
        nodes[3] = base + np;
        for (int c = 0; c < 4; c++)
          nodes[c + 4] = nodes[c] + np * np;
        /* The low planes are planes of symmetry: the element mirrors
         * itself there; the high ones are free: nothing beyond. */
        d.lxim[el] = i > 0 ? el - 1 : el;
        d.lxip[el] = i < n - 1 ? el + 1 : -1;
        d.letam[el] = j > 0 ? el - n : el;
        d.letap[el] = j < n - 1 ? el + n : -1;
        d.lzetam[el] = k > 0 ? el - n * n : el;
        d.lzetap[el] = k < n - 1 ? el + n * n : -1;
        d.regions[(i / block + j / block + k / block) % kRegions].elems.push_back(el);
      }
  for (auto &r : d.regions)
    r.resize_scratch();

  /* Each node's corners, in element order: the force gather adds them in
   * this order every step, whoever runs it. */
  d.corner_start.assign(nn + 1, 0);
  for (std::size_t c = 0; c < 8 * ne; c++)
    d.corner_start[(std::size_t)d.nodelist[c] + 1]++;
  for (std::size_t node = 0; node < nn; node++)
    d.corner_start[node + 1] += d.corner_start[node];
  d.corner_list.assign(8 * ne, 0);
  std::vector<int> fill(d.corner_start.begin(), d.corner_start.end() - 1);
  for (std::size_t c = 0; c < 8 * ne; c++)
    d.corner_list[(std::size_t)fill[(std::size_t)d.nodelist[c]]++] = (int)c;
}

/* The fields at time 0: at rest, unit density, all the energy in the
 * element at the corner of symmetry (a Sedov blast), LULESH's amount. */
void initialize(Domain &d)
{
  /* Parallel, so that the pages of the element arrays are first touched
   * by the threads that will use them. */
#pragma omp parallel for
  for (int el = 0; el < d.num_elem; el++) {
    Vec3 c[8];
    gather_corners(d, el, d.x, d.y, d.z, c);
    double vol = hex_volume(c, [](int, Vec3) {});
    d.volo[el] = vol;
    d.elem_mass[el] = vol;
    d.v[el] = d.vnew[el] = d.vnewc[el] = 1.0;
    d.arealg[el] = kEdge / d.n;
  }
  for (int node = 0; node < d.num_node; node++) {
    double m = 0;
    for (int k = d.corner_start[node]; k < d.corner_start[node + 1]; k++)
      m += d.elem_mass[d.corner_list[k] / 8] / 8.0;
    d.nodal_mass[node] = m;
  }
  double scale = d.n / 45.0;
  double e_init = 3.948746e+7 * scale * scale * scale;
  d.e[0] = e_init;
  auto set_eos = [&](const auto &eos, const Region &r) {
    for (int el : r.elems) {
      d.p[el] = std::max(0.0, eos.pressure(d.e[el], 1.0));
      d.ss[el] = std::sqrt(std::max(eos.sound_speed2(d.p[el], 1.0), kTiny));
    }
  };
  set_eos(d.gas_a, d.regions[0]);
  set_eos(d.gas_b, d.regions[1]);
  set_eos(d.liquid, d.regions[2]);
  d.dt = 0.5 * std::cbrt(d.volo[0]) / std::sqrt(2.0 * e_init);
}

/* ---- The time step. ---- */

/* The next dt from the last step's constraints, kept from changing by
 * small amounts and from growing fast. */
void time_increment(Domain &d)
{
  if (d.cycle > 0) {
    double old_dt = d.dt, new_dt = 1e20;
    if (d.dt_courant < new_dt)
      new_dt = d.dt_courant / 2.0;
    if (d.dt_hydro * 2.0 / 3.0 < new_dt)
      new_dt = d.dt_hydro * 2.0 / 3.0;
    double ratio = new_dt / old_dt;
    if (ratio >= 1.0) {
      if (ratio < kDtGrowthMin)
        new_dt = old_dt;
      else if (ratio > kDtGrowthMax)
        new_dt = old_dt * kDtGrowthMax;
    }
    d.dt = std::min(new_dt, kDtMax);
  }
  d.time += d.dt;
  d.cycle++;
}

/* Loop 1: each element's volume derivatives at the current positions,
 * kept for the stress and hourglass loops; returns the number of
 * elements turned inside out (none, in a sound run). */
long long volume_derivatives(Domain &d)
{
  long long inverted = 0;
#pragma omp parallel for reduction(+ : inverted)
  for (int el = 0; el < d.num_elem; el++) {
    Vec3 c[8], g[8] = {};
    gather_corners(d, el, d.x, d.y, d.z, c);
    double vol = hex_volume(c, [&](int k, Vec3 dv) { g[k] = g[k] + dv; });
    std::size_t base = 8 * (std::size_t)el;
    for (int k = 0; k < 8; k++) {
      d.dvdx[base + k] = g[k].x;
      d.dvdy[base + k] = g[k].y;
      d.dvdz[base + k] = g[k].z;
    }
    inverted += vol <= 0.0;
  }
  return inverted;
}

/* Loop 2: the stress's forces on the corners, (p + q) times the volume's
 * derivative: the pressure pushes the corners outward. */
void integrate_stress(Domain &d)
{
  parallel_for(d.num_elem, [&d](int el) {
    double sigma = d.p[el] + d.q[el];
    std::size_t base = 8 * (std::size_t)el;
    for (int k = 0; k < 8; k++) {
      d.cfx[base + k] = sigma * d.dvdx[base + k];
      d.cfy[base + k] = sigma * d.dvdy[base + k];
      d.cfz[base + k] = sigma * d.dvdz[base + k];
    }
  });
}

/* The four hourglass patterns of a hexahedron: corner motions that leave
 * its volume alone, which the stress cannot resist. */
constexpr double kGamma[4][8] = {{1, 1, -1, -1, -1, -1, 1, 1},
                                 {1, -1, -1, 1, -1, 1, 1, -1},
                                 {1, -1, 1, -1, 1, -1, 1, -1},
                                 {-1, 1, -1, 1, 1, -1, 1, -1}};

/* Loop 3: Flanagan-Belytschko hourglass control: each pattern, made
 * orthogonal to the linear motions, resisted by a force proportional to
 * the corners' velocities along it. */
void hourglass_control(Domain &d)
{
#pragma omp parallel for
  for (int el = 0; el < d.num_elem; el++) {
    Vec3 c[8], u[8];
    gather_corners(d, el, d.x, d.y, d.z, c);
    gather_corners(d, el, d.xd, d.yd, d.zd, u);
    std::size_t base = 8 * (std::size_t)el;
    double vol = d.volo[el] * d.v[el];
    double inv_vol = 1.0 / vol;
    double coefficient =
        -kHourglass * 0.01 * d.ss[el] * d.elem_mass[el] / std::cbrt(vol);
    Vec3 force[8] = {};
    auto mode = [&](int m) {
      Vec3 moment = {0, 0, 0};
      for (int k = 0; k < 8; k++)
        moment = moment + kGamma[m][k] * c[k];
      double hg[8];
      Vec3 velocity = {0, 0, 0};
      for (int k = 0; k < 8; k++) {
        Vec3 b = {d.dvdx[base + k], d.dvdy[base + k], d.dvdz[base + k]};
        hg[k] = kGamma[m][k] - inv_vol * dot(moment, b);
        velocity = velocity + hg[k] * u[k];
      }
      for (int k = 0; k < 8; k++)
        force[k] = force[k] + (coefficient * hg[k]) * velocity;
    };
    for (int m = 0; m < 4; m++)
      mode(m);
    for (int k = 0; k < 8; k++) {
      d.cfx[base + k] += force[k].x;
      d.cfy[base + k] += force[k].y;
      d.cfz[base + k] += force[k].z;
    }
  }
}

/* Loop 4: each node's force, its corners' summed in a fixed order. */
void gather_forces(Domain &d)
{
#pragma omp parallel for
  for (int node = 0; node < d.num_node; node++) {
    double sx = 0, sy = 0, sz = 0;
    for (int k = d.corner_start[node]; k < d.corner_start[node + 1]; k++) {
      std::size_t c = (std::size_t)d.corner_list[k];
      sx += d.cfx[c];
      sy += d.cfy[c];
      sz += d.cfz[c];
    }
    d.fx[node] = sx;
    d.fy[node] = sy;
    d.fz[node] = sz;
  }
}

/* Loop 5. */
void acceleration(Domain &d)
{
  parallel_for(d.num_node, [&d](int node) {
    double inv_mass = 1.0 / d.nodal_mass[node];
    d.xdd[node] = d.fx[node] * inv_mass;
    d.ydd[node] = d.fy[node] * inv_mass;
    d.zdd[node] = d.fz[node] * inv_mass;
  });
}

/* Loops 6-8: nothing crosses a plane of symmetry. A template over the
 * axis, one instance a plane. */
template <int Axis>
void symmetry_plane(Domain &d)
{
  std::vector<double> &acc = Axis == 0 ? d.xdd : Axis == 1 ? d.ydd : d.zdd;
  const std::vector<int> &nodes = Axis == 0 ? d.symm_x : Axis == 1 ? d.symm_y : d.symm_z;
  int count = (int)nodes.size();
#pragma omp parallel for
  for (int k = 0; k < count; k++)
    acc[nodes[k]] = 0.0;
}

/* Loops 9 and 10: velocities (the slowest set to rest) and positions. */
void advance_nodes(Domain &d)
{
  double dt = d.dt;
  auto cut = [](double u) { return std::fabs(u) < kVelocityCut ? 0.0 : u; };
#pragma omp parallel for
  for (int node = 0; node < d.num_node; node++) {
    d.xd[node] = cut(d.xd[node] + d.xdd[node] * dt);
    d.yd[node] = cut(d.yd[node] + d.ydd[node] * dt);
    d.zd[node] = cut(d.zd[node] + d.zdd[node] * dt);
  }
#pragma omp parallel for
  for (int node = 0; node < d.num_node; node++) {
    d.x[node] += d.xd[node] * dt;
    d.y[node] += d.yd[node] * dt;
    d.z[node] += d.zd[node] * dt;
  }
}

/* The nodal half of a step: forces, accelerations, motion. */
void lagrange_nodal(Domain &d)
{
  if (volume_derivatives(d) != 0) {
    std::fprintf(stderr, "bench_proxy_app_child: an element turned inside out at cycle %d\n",
                 d.cycle);
    std::exit(1);
  }
  integrate_stress(d);
  hourglass_control(d);
  gather_forces(d);
  acceleration(d);
  symmetry_plane<0>(d);
  symmetry_plane<1>(d);
  symmetry_plane<2>(d);
  advance_nodes(d);
}

/* Loop 11: each element's new volume and characteristic length (its
 * volume over its largest face's area). */
void kinematics(Domain &d)
{
  static constexpr int kFaces[6][4] = {{0, 1, 2, 3}, {0, 1, 5, 4}, {1, 2, 6, 5},
                                       {2, 3, 7, 6}, {3, 0, 4, 7}, {4, 5, 6, 7}};
#pragma omp parallel for
  for (int el = 0; el < d.num_elem; el++) {
    Vec3 c[8];
    gather_corners(d, el, d.x, d.y, d.z, c);
    double vol = hex_volume(c, [](int, Vec3) {});
    double largest = 0;
    for (const auto &f : kFaces) {
      Vec3 area = 0.5 * cross(c[f[2]] - c[f[0]], c[f[3]] - c[f[1]]);
      largest = std::max(largest, dot(area, area));
    }
    d.vnew[el] = vol / d.volo[el];
    d.delv[el] = d.vnew[el] - d.v[el];
    d.arealg[el] = vol / std::sqrt(largest);
  }
}

/* Loop 12: the strain rate at the half step (positions moved back half a
 * step), its trace (vdov, the relative rate of volume change) and its
 * deviator; counts the elements in motion. */
void strain_rates(Domain &d)
{
  double half_dt = 0.5 * d.dt;
  long long moving = 0;
#pragma omp parallel for reduction(+ : moving)
  for (int el = 0; el < d.num_elem; el++) {
    Vec3 c[8], u[8], g[8] = {};
    gather_corners(d, el, d.x, d.y, d.z, c);
    gather_corners(d, el, d.xd, d.yd, d.zd, u);
    for (int k = 0; k < 8; k++)
      c[k] = c[k] - half_dt * u[k];
    double vol = hex_volume(c, [&](int k, Vec3 dv) { g[k] = g[k] + dv; });
    double inv_vol = 1.0 / vol;
    double exx = 0, eyy = 0, ezz = 0;
    for (int k = 0; k < 8; k++) {
      exx += u[k].x * g[k].x;
      eyy += u[k].y * g[k].y;
      ezz += u[k].z * g[k].z;
    }
    exx *= inv_vol;
    eyy *= inv_vol;
    ezz *= inv_vol;
    double trace = exx + eyy + ezz;
    d.vdov[el] = trace;
    d.dxx[el] = exx - trace / 3.0;
    d.dyy[el] = eyy - trace / 3.0;
    d.dzz[el] = ezz - trace / 3.0;
    moving += trace != 0.0;
  }
  d.moving_elems += moving;
}

/* Loop 13: the velocity's and the position's differences across the
 * element in each of its three directions, which the monotonic q limits
 * against its neighbours'. */
void q_gradients(Domain &d)
{
#pragma omp parallel for
  for (int el = 0; el < d.num_elem; el++) {
    Vec3 c[8], u[8];
    gather_corners(d, el, d.x, d.y, d.z, c);
    gather_corners(d, el, d.xd, d.yd, d.zd, u);
    double vol = d.volo[el] * d.vnew[el];
    double norm = 1.0 / (vol + kTiny);
    /* The mean over one face minus the mean over the opposite one. */
    auto across = [](const Vec3(&a)[8], int l0, int l1, int l2, int l3, int h0, int h1, int h2,
                     int h3) {
      return 0.25 * ((a[h0] + a[h1] + a[h2] + a[h3]) - (a[l0] + a[l1] + a[l2] + a[l3]));
    };
    Vec3 di = across(c, 0, 3, 7, 4, 1, 2, 6, 5), dj = across(c, 0, 1, 5, 4, 3, 2, 6, 7),
         dk = across(c, 0, 1, 2, 3, 4, 5, 6, 7);
    Vec3 ui = across(u, 0, 3, 7, 4, 1, 2, 6, 5), uj = across(u, 0, 1, 5, 4, 3, 2, 6, 7),
         uk = across(u, 0, 1, 2, 3, 4, 5, 6, 7);
    /* One direction: the face's normal from the other two. */
    auto direction = [&](Vec3 a, Vec3 b, Vec3 du, double &delx, double &delv) {
      Vec3 normal = cross(a, b);
      delx = vol / std::sqrt(dot(normal, normal) + kTiny);
      delv = dot(norm * normal, du);
    };
    direction(dj, dk, ui, d.delx_xi[el], d.delv_xi[el]);
    direction(dk, di, uj, d.delx_eta[el], d.delv_eta[el]);
    direction(di, dj, uk, d.delx_zeta[el], d.delv_zeta[el]);
  }
}

/* Loops 14-16, one a region: the monotonic artificial viscosity's linear
 * and quadratic terms, each direction's gradient limited by its
 * neighbours' (zero where the element expands). */
void q_region(Domain &d, const Region &r)
{
  int count = (int)r.elems.size();
  auto limiter = [](const std::vector<double> &delv, int el, int minus, int plus) {
    double norm = 1.0 / (delv[el] + kTiny);
    double dm = (minus >= 0 ? delv[minus] : 0.0) * norm;
    double dp = (plus >= 0 ? delv[plus] : 0.0) * norm;
    double phi = 0.5 * (dm + dp);
    phi = std::min({phi, kMonoQMult * dm, kMonoQMult * dp});
    return std::clamp(phi, 0.0, kMonoQMaxSlope);
  };
#pragma omp parallel for
  for (int k = 0; k < count; k++) {
    int el = r.elems[k];
    double phi_xi = limiter(d.delv_xi, el, d.lxim[el], d.lxip[el]);
    double phi_eta = limiter(d.delv_eta, el, d.letam[el], d.letap[el]);
    double phi_zeta = limiter(d.delv_zeta, el, d.lzetam[el], d.lzetap[el]);
    if (d.vdov[el] > 0.0) {
      d.ql[el] = d.qq[el] = 0.0;
      continue;
    }
    double dx = std::min(0.0, d.delv_xi[el] * d.delx_xi[el]);
    double dy = std::min(0.0, d.delv_eta[el] * d.delx_eta[el]);
    double dz = std::min(0.0, d.delv_zeta[el] * d.delx_zeta[el]);
    double rho = d.elem_mass[el] / (d.volo[el] * d.vnew[el]);
    d.ql[el] = -kQLinear * rho * (dx * (1 - phi_xi) + dy * (1 - phi_eta) + dz * (1 - phi_zeta));
    d.qq[el] = kQQuadratic * rho *
               (dx * dx * (1 - phi_xi * phi_xi) + dy * dy * (1 - phi_eta * phi_eta) +
                dz * dz * (1 - phi_zeta * phi_zeta));
  }
}

/* Loop 17: the largest q, a max reduction: past kQStop the run broke. */
double q_max(const Domain &d)
{
  double largest = 0;
#pragma omp parallel for reduction(max : largest)
  for (int el = 0; el < d.num_elem; el++)
    largest = std::max(largest, d.q[el]);
  return largest;
}

/* Loop 18: the volumes the equations of state see, kept in their range;
 * counts those it had to clamp. */
void material_volumes(Domain &d)
{
  long long clamped = 0, inverted = 0;
#pragma omp parallel for reduction(+ : clamped, inverted)
  for (int el = 0; el < d.num_elem; el++) {
    double vc = std::clamp(d.vnew[el], kEosVMin, kEosVMax);
    clamped += vc != d.vnew[el];
    inverted += d.v[el] <= 0.0;
    d.vnewc[el] = vc;
  }
  if (inverted) {
    std::fprintf(stderr, "bench_proxy_app_child: a negative volume at cycle %d\n", d.cycle);
    std::exit(1);
  }
  d.volume_clamps += clamped;
}

/* Loops 19-22 for each region: the energy update of an explicit code
 * (predictor at the half step, corrector at the full one, q evaluated at
 * each), on the region's own equation of state: a template over it. */
template <class Eos>
void eval_eos(Domain &d, Region &r, const Eos &eos)
{
  int count = (int)r.elems.size();
  auto pressure = [&eos](double e, double v) {
    double p = eos.pressure(e, v);
    if (std::fabs(p) < kPressureCut)
      p = 0.0;
    return std::max(p, 0.0);
  };
  auto energy = [](double e) { return std::fabs(e) < kEnergyCut ? 0.0 : std::max(e, 0.0); };
  /* q for a compressing element, from the linear and quadratic terms and
   * the sound speed at (p, v). */
  auto viscosity = [&eos](double p, double v, double ql, double qq) {
    double ss2 = eos.sound_speed2(p, v);
    double ssc = ss2 <= 1.111111e-36 ? 0.333333e-18 : std::sqrt(ss2);
    return ssc * ql + qq;
  };
#pragma omp parallel for
  for (int k = 0; k < count; k++) {
    int el = r.elems[k];
    r.v_new[k] = d.vnewc[el];
    r.delvc[k] = d.delv[el];
    r.v_half[k] = d.vnewc[el] - 0.5 * d.delv[el];
    r.e_old[k] = d.e[el];
    r.p_old[k] = d.p[el];
    r.q_old[k] = d.q[el];
    r.ql[k] = d.ql[el];
    r.qq[k] = d.qq[el];
  }
#pragma omp parallel for
  for (int k = 0; k < count; k++) {
    r.e_new[k] = energy(r.e_old[k] - 0.5 * r.delvc[k] * (r.p_old[k] + r.q_old[k]));
    r.p_half[k] = pressure(r.e_new[k], r.v_half[k]);
  }
#pragma omp parallel for
  for (int k = 0; k < count; k++) {
    double q_half =
        r.delvc[k] > 0.0 ? 0.0 : viscosity(r.p_half[k], r.v_half[k], r.ql[k], r.qq[k]);
    r.q_new[k] = q_half;
    r.e_new[k] = energy(r.e_new[k] + 0.5 * r.delvc[k] *
                                         (3.0 * (r.p_old[k] + r.q_old[k]) -
                                          4.0 * (r.p_half[k] + q_half)));
    r.p_new[k] = pressure(r.e_new[k], r.v_new[k]);
  }
#pragma omp parallel for
  for (int k = 0; k < count; k++) {
    int el = r.elems[k];
    double v = r.v_new[k];
    double q_tilde = r.delvc[k] > 0.0 ? 0.0 : viscosity(r.p_new[k], v, r.ql[k], r.qq[k]);
    double e_new = energy(r.e_new[k] - (7.0 * (r.p_old[k] + r.q_old[k]) -
                                        8.0 * (r.p_half[k] + r.q_new[k]) + (r.p_new[k] + q_tilde)) *
                                           r.delvc[k] / 6.0);
    double p_new = pressure(e_new, v);
    double q_new = r.delvc[k] > 0.0 ? 0.0 : viscosity(p_new, v, r.ql[k], r.qq[k]);
    d.e[el] = e_new;
    d.p[el] = p_new;
    d.q[el] = std::fabs(q_new) < kQCut ? 0.0 : q_new;
    d.ss[el] = std::sqrt(std::max(eos.sound_speed2(p_new, v), kTiny));
  }
}

/* Loop 23: the new volumes become the current ones. */
void update_volumes(Domain &d)
{
  parallel_for(d.num_elem, [&d](int el) {
    double v = d.vnew[el];
    d.v[el] = std::fabs(v - 1.0) < kVolumeCut ? 1.0 : v;
  });
}

/* The element half of a step. */
void lagrange_elements(Domain &d)
{
  kinematics(d);
  strain_rates(d);
  q_gradients(d);
  for (const Region &r : d.regions)
    q_region(d, r);
  if (q_max(d) > kQStop) {
    std::fprintf(stderr, "bench_proxy_app_child: q above %g at cycle %d\n", kQStop, d.cycle);
    std::exit(1);
  }
  material_volumes(d);
  eval_eos(d, d.regions[0], d.gas_a);
  eval_eos(d, d.regions[1], d.gas_b);
  eval_eos(d, d.regions[2], d.liquid);
  update_volumes(d);
}

/* Loops 24-26, one a region: the Courant and the volume-change limits on
 * the next dt, min reductions. */
void time_constraints(Domain &d)
{
  double courant = 1e20, hydro = 1e20;
  for (const Region &r : d.regions) {
    int count = (int)r.elems.size();
    double dtc = 1e20, dth = 1e20;
#pragma omp parallel for reduction(min : dtc, dth)
    for (int k = 0; k < count; k++) {
      int el = r.elems[k];
      double vdov = d.vdov[el];
      if (vdov == 0.0)
        continue;
      double speed2 = d.ss[el] * d.ss[el];
      if (vdov < 0.0)
        speed2 += kQQC2 * d.arealg[el] * d.arealg[el] * vdov * vdov;
      dtc = std::min(dtc, d.arealg[el] / std::sqrt(speed2));
      dth = std::min(dth, kDvovMax / (std::fabs(vdov) + 1e-20));
    }
    courant = std::min(courant, dtc);
    hydro = std::min(hydro, dth);
  }
  d.dt_courant = courant;
  d.dt_hydro = hydro;
}

/* ---- The result. ---- */

/* FNV-1a over the bits of the values. */
struct Hash {
  std::uint64_t h = 0xcbf29ce484222325ull;
  void add(const void *data, std::size_t len)
  {
    const unsigned char *b = static_cast<const unsigned char *>(data);
    for (std::size_t k = 0; k < len; k++)
      h = (h ^ b[k]) * 0x100000001b3ull;
  }
  void add(const std::vector<double> &v) { add(v.data(), v.size() * sizeof v[0]); }
};

} // namespace

int main(int argc, char **argv)
{
  if (argc != 3 || std::atoi(argv[1]) < 1 || std::atoi(argv[1]) > 200 || std::atoi(argv[2]) < 0) {
    std::fprintf(stderr, "usage: bench_proxy_app_child SIZE (1-200) STEPS (0 or more)\n");
    return 2;
  }
  int size = std::atoi(argv[1]), steps = std::atoi(argv[2]);
  Domain d;
  build_mesh(d, size);
  initialize(d);

  auto start = std::chrono::steady_clock::now();
  for (int s = 0; s < steps; s++) {
    time_increment(d);
    lagrange_nodal(d);
    lagrange_elements(d);
    time_constraints(d);
  }
  std::chrono::duration<double> loop = std::chrono::steady_clock::now() - start;

  /* Sums whose rounding depends on the team's split: printed, not hashed. */
  double internal = 0, kinetic = 0;
#pragma omp parallel for reduction(+ : internal)
  for (int el = 0; el < d.num_elem; el++)
    internal += d.e[el] * d.volo[el];
#pragma omp parallel for reduction(+ : kinetic)
  for (int node = 0; node < d.num_node; node++)
    kinetic += 0.5 * d.nodal_mass[node] *
               (d.xd[node] * d.xd[node] + d.yd[node] * d.yd[node] + d.zd[node] * d.zd[node]);

  Hash hash;
  for (const auto *a : {&d.x, &d.y, &d.z, &d.xd, &d.yd, &d.zd, &d.e, &d.p, &d.q, &d.v, &d.ss})
    hash.add(*a);
  hash.add(&d.time, sizeof d.time);
  hash.add(&d.dt, sizeof d.dt);
  hash.add(&d.volume_clamps, sizeof d.volume_clamps);
  hash.add(&d.moving_elems, sizeof d.moving_elems);
  std::printf("%.6f\nchecksum %016llx\nenergy %.9e (internal %.6e, kinetic %.6e) at t=%.6e "
              "after %d steps\n",
              loop.count(), (unsigned long long)hash.h, internal + kinetic, internal, kinetic,
              d.time, steps);
  return 0;
}
