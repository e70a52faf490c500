#!/usr/bin/env bash
# Record the README's shell tour in an 80x50 tmux terminal: docs/tour-80col.txt.
#
#   scripts/record_tour.sh [OUT]        (from the repository root)
#
# Runs this checkout's nnlat (PYTHONPATH=src) in a fresh temporary folder and database,
# so the first query is measured and the second served from the database.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-docs/tour-80col.txt}"
repo="$(pwd)"
work="$(mktemp -d)"
session="nnlat-tour-$$"
trap 'tmux kill-session -t "$session" 2>/dev/null || true; rm -rf "$work"' EXIT

tmux new-session -d -s "$session" -x 80 -y 50 -c "$work"
tmux resize-window -t "$session" -x 80 -y 50 2>/dev/null || true
tmux set-option -t "$session" history-limit 10000 >/dev/null
# The shell signals each prompt (PROMPT_COMMAND); a command is typed only at a prompt.
tmux send-keys -t "$session" "PROMPT_COMMAND='tmux wait-for -S $session-prompt'" Enter
tmux wait-for "$session-prompt"
run() {
  sleep 0.3
  tmux send-keys -t "$session" "$1" Enter
  tmux wait-for "$session-prompt"
}
run "export PS1='$ ' COLUMNS=80 PYTHONPATH='$repo/src' NNLAT_DB_URL='sqlite:///$work/nnlat.db' XDG_CACHE_HOME='$work/cache'"
run "nnlat() { python -m nnlat \"\$@\"; }"
run "clear"
tmux clear-history -t "$session"
run "nnlat --help"
run "nnlat zoo export -f resnet -n 1 -o models"
run "nnlat inspect models/resnet_00000_*.onnx"
run "nnlat platforms"
run "nnlat query models/resnet_00000_*.onnx"
run "nnlat query models/resnet_00000_*.onnx"
run "nnlat query models/resnet_00000_*.onnx -b 16"
run "nnlat predict models/resnet_00000_*.onnx"
run "nnlat predict models/resnet_00000_*.onnx -p epyc-ort1.31-fp32-t || echo \"exit code \$?\""
tmux capture-pane -t "$session" -p -S - -E - \
  | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$out"
echo "wrote $out ($(wc -l <"$out") lines)"
