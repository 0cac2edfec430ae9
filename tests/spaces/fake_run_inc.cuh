// Included by fake_run.cu; tests/cli_fake_run.sh edits a copy of it.
#define FAKE_RUN_COPY(x) (x)
