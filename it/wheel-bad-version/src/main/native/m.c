int m_one(void) { return 1; }
