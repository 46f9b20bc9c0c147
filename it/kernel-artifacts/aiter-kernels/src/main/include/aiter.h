#pragma once
/* The public API of aiter: x * 3 + 1, through a kernel from sources and one from prebuilt objects. */
int aiter_tile(int x);
