#pragma once
int p_answer(void);
