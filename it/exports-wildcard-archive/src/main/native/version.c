int va_version(void) { return 1; }
