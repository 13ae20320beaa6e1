#include <cstdio>

int main() {
    std::puts("samsa");
    return 0;
}
