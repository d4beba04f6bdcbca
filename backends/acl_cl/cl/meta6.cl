// Index helpers over the 6-dimension meta arrays of ops/common.py (included by the programs
// that use them; program_cache expands `#include`).
#ifndef META6_CL
#define META6_CL

// bcast_meta: 6 output dims, a's 6 element strides, b's (0 where broadcast). The offset in a
// of output element i; b's in *ib.
inline int bcast_offsets(int i, __constant int *meta, int *ib) {
  int r = i, ia = 0;
  *ib = 0;
  for (int d = 5; d >= 0; --d) {
    int dim = meta[d];
    int c = r % dim;
    r /= dim;
    ia += c * meta[6 + d];
    *ib += c * meta[12 + d];
  }
  return ia;
}

// reduce_meta: 6 kept dims and their strides, 6 reduced dims and theirs. The input offset of
// the first element reduced into output i, and of reduced element j from that base.
inline int reduce_base(int i, __constant int *meta) {
  int r = i, base = 0;
  for (int d = 5; d >= 0; --d) {
    base += (r % meta[d]) * meta[6 + d];
    r /= meta[d];
  }
  return base;
}

inline int reduce_offset(int j, int base, __constant int *meta) {
  int q = j, off = base;
  for (int d = 5; d >= 0; --d) {
    off += (q % meta[12 + d]) * meta[18 + d];
    q /= meta[12 + d];
  }
  return off;
}

#endif
