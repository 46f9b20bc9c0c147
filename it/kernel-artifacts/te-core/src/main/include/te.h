#pragma once
int te_forward(int x);
