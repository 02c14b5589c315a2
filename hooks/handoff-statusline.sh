# handoff's status line for Claude Code, in POSIX sh: no Node start-up (~60 ms) on every refresh.
# Installed by `handoff hooks install` as:  sh /…/hooks/handoff-statusline.sh <store>/.handoffd
# The daemon writes one file per session under <store>/.handoffd/status/ (docs/HOOKS.md): line 1
# coloured, line 2 plain. This script only finds the session in Claude Code's JSON and prints
# that file's line. It runs no command but builtins, never evaluates its input, and exits 0.
# `handoff hook statusline` is the Node equivalent (Windows, or a machine without sh).

run=${1:-}
input=
# Bounded: Claude Code sends ~2 KB; a larger stdin is not a status line input.
while [ ${#input} -lt 65536 ] && IFS= read -r l; do input="$input $l"; done
[ ${#input} -lt 65536 ] && input="$input $l"

# The value of the first "session_id" key that is followed by a colon and a string. Whatever it
# is, it is used only if it is a plain id (letters, digits, - and _), so it cannot name another path.
id=
rest=$input
tries=0
while [ -z "$id" ] && [ $tries -lt 8 ]; do
  tries=$((tries + 1))
  case $rest in *'"session_id"'*) ;; *) break ;; esac
  rest=${rest#*'"session_id"'}
  v=${rest#"${rest%%[! 	]*}"}
  case $v in :*) v=${v#:} ;; *) continue ;; esac
  v=${v#"${v%%[! 	]*}"}
  case $v in \"*) v=${v#\"} ;; *) continue ;; esac
  id=${v%%\"*}
done
case $id in *[!A-Za-z0-9_-]*) id= ;; esac
[ ${#id} -le 128 ] || id=

# The daemon is alive when the pid of its lock answers (the lock is gone after a clean stop).
alive=
lock=
{ IFS= read -r lock < "$run/handoffd.lock"; } 2>/dev/null
pid=${lock#*'"pid":'}
pid=${pid%%[!0-9]*}
[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && alive=1

line=
plain=
if [ -n "$id" ]; then
  { { IFS= read -r line; IFS= read -r plain; } < "$run/status/$id"; } 2>/dev/null
fi
if [ -n "${NO_COLOR:-}" ]; then
  if [ -n "$plain" ]; then out=$plain; elif [ -n "$id" ]; then out='handoff · not built yet'; else out='handoff · no session in the status line input'; fi
  [ -n "$alive" ] || out="$out · daemon off"
  printf '%s\n' "$out"
else
  if [ -n "$line" ]; then printf '%s' "$line"; elif [ -n "$id" ]; then printf '\033[1mhandoff\033[0m · \033[90mnot built yet\033[0m'; else printf '\033[1mhandoff\033[0m · \033[90mno session in the status line input\033[0m'; fi
  [ -n "$alive" ] || printf ' · \033[90mdaemon off\033[0m'
  printf '\n'
fi
exit 0
