#ifndef TROVE_PANELS_H
#define TROVE_PANELS_H

#include <stddef.h>

/// For the products' register tiles: no call to memset for zeroing their accumulators.
#define TILE_CODE __attribute__((no_builtin("memset")))

/// Multiplies `rows` rows of A from row i by one panel of W (`columns` of its columns used).
typedef void (*trove_panel_visit)(const void *context, int i, int rows, int panel, int columns);

/// The walk of the reduced-precision products (bf16, int8): W's `width`-column panels (`panelBytes` each) in groups
/// of about 192 KB, which stay in L2 while every six-row group of A's m rows goes past them.
static inline void trove_walk_panels(int m, int n, int width, size_t panelBytes, trove_panel_visit visit,
                                     const void *context) {
    int panels = (n + width - 1) / width;
    int group = (int)((192 * 1024) / panelBytes);
    if (group < 1) group = 1;
    for (int start = 0; start < panels; start += group) {
        int last = start + group < panels ? start + group : panels;
        for (int i = 0; i < m; i += 6) {
            int rows = m - i < 6 ? m - i : 6;
            for (int panel = start; panel < last; panel++) {
                int columns = n - panel * width;
                visit(context, i, rows, panel, columns > width ? width : columns);
            }
        }
    }
}

#endif
