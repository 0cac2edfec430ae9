#!/usr/bin/env bash
# cutune report opened in a real headless browser (Chromium, installed by tools/setup): the page
# renders with no console output at all (no errors, no script exceptions), its inline script
# ran (body data-ready="1"), its main figures are there after rendering, and a screenshot is
# kept as an artifact in the build folder (report_screenshot.png). A page with a throwing
# script is caught by the same check, so the check itself can fail.
. "$(dirname "$0")/lib_cli.sh"
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ] && [ "${CUTUNE_REQUIRE_BROWSER:-0}" = 1 ]; then
  echo "FAIL: no chromium, and CUTUNE_REQUIRE_BROWSER=1 (CI): tools/setup should have installed it" >&2
  exit 1
fi
if [ -z "$CHROME" ]; then
  echo "skipped: no chromium (tools/setup installs Debian's chromium package; CUTUNE_NO_BROWSER=1 skips it there)"
  exit 77
fi
set -e
S=$TMPROOT
cp tests/fixtures/explain/transpose_h200.jsonl "$S/transpose.jsonl"
cp tests/fixtures/explain/transpose_h200.explain.jsonl "$S/transpose.explain.jsonl"
expect_status 0 -- "$BIN" report --store "$S/transpose.jsonl" -o "$S/report.html"
ART=$(dirname "$BIN")/report_screenshot.png
browse() { # browse FILE DOM_OUT LOG_OUT [extra flags]: dump the rendered DOM, log the console
  local f=$1 dom=$2 log=$3; shift 3
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-extensions \
    --user-data-dir="$S/chrome" --enable-logging=stderr --v=0 --virtual-time-budget=2000 "$@" \
    --dump-dom "file://$f" >"$dom" 2>"$log" || true
}
browse "$S/report.html" "$S/dom.html" "$S/console.log"
if grep -q "CONSOLE" "$S/console.log"; then fail "console output: $(grep CONSOLE "$S/console.log" | head -3)"; else ok; fi
grep -q 'data-ready="1"' "$S/dom.html" && ok || fail "the page's script did not run (no data-ready=1)"
for id in best-0 params-0-0 front-0 curve-0-evals curve-0-seconds resources-0 explain-0 provenance; do
  grep -q "id=\"$id\"" "$S/dom.html" && ok || fail "rendered page lacks #$id"
done
svgs=$(grep -o '<svg ' "$S/dom.html" | wc -l)
[ "$svgs" -ge 11 ] && ok || fail "$svgs figures rendered (wanted >= 11: 9 parameters, 2 curves)"
grep -q "32-way bank conflicts on shared loads" "$S/dom.html" && ok || fail "explain readings not rendered"
grep -q ">flagged<" "$S/dom.html" && ok || fail "the flagged sanitizer verdict is not shown"
# the screenshot: the artifact
rm -f "$ART"
timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$S/chrome" \
  --hide-scrollbars --window-size=1200,3000 --screenshot="$ART" "file://$S/report.html" >/dev/null 2>&1 || true
[ -s "$ART" ] && ok || fail "no screenshot at $ART"
# the check catches a broken page
printf '<html><body><script>null.x();</script></body></html>' >"$S/bad.html"
browse "$S/bad.html" "$S/bad_dom.html" "$S/bad_console.log"
grep -q "Uncaught" "$S/bad_console.log" && ok || fail "a throwing script was not seen in the console log"
echo "screenshot: $ART"
finish
