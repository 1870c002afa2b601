/* Being written. */
int main(void) { return 77; }
