/* Seconds per GB (1e9 bytes) a plain memcpy takes on this machine, copying `GiB`
 * gibibytes in 1 MiB chunks: the yardstick for the broker's CPU cost per GB (bench/e2e_bench.sh). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char** argv) {
    double gib = argc > 1 ? atof(argv[1]) : 1.0;
    size_t chunk = 1 << 20;
    size_t n = (size_t)(gib * 1024);
    char* src = malloc(chunk);
    char* dst = malloc(chunk * 64);
    memset(src, 7, chunk);
    memset(dst, 0, chunk * 64);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (size_t i = 0; i < n; ++i) {
        memcpy(dst + (i % 64) * chunk, src, chunk);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
    printf("%.6f\n", s / (gib * 1.073741824) + (dst[(n % 64) * chunk / 2] == 42 ? 1e-12 : 0));
    return 0;
}
