/* main: placeholder, replaced by the command line */
int main(void) { return 0; }
