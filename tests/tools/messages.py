#!/usr/bin/python3
"""The messages cnihook can print at warn or error level, against the list
of cnihook-troubleshooting(7).

    messages.py check SRCDIR      every message has an entry (exit 1 if not,
                                  naming each message without one)
    messages.py missing SRCDIR    the entries to add, in roff, for the
                                  messages without one
    messages.py list SRCDIR       every message found, with its place

A message is the format string (adjacent literals joined) of a call that
prints at warn or error level, or that makes the error text a caller prints
(the hook's one error convention, docs/architecture.md):
    log_warn(FMT, ...)  log_error(FMT, ...)  log_msg(LEVEL, FMT, ...)
    error_set(ERR, FMT, ...)  xasprintf(FMT, ...)  ...err = xstrdup(FMT)
in every .c file under hook/ (xasprintf makes the texts that the engine's
failures, gc's evidence and the refusals pass on). A format whose constant
part has no space or fewer than two lower-case words ("%s %s: %s", "gc: %s",
"/proc/%d/ns/net") passes on a message made elsewhere, or is a path, and is
not a message of its own.

An entry of the page is the line after a .TP or .TQ (messages that share
a cause and a fix) in its MESSAGES section; its
placeholders are words in capitals (or anything else): a message has its
entry when the entry's text, with roff's font escapes removed, matches the
format with every conversion read as "any text". So a message may be
reworded as long as its entry is reworded with it, and the check does not
depend on how a terminal renders the page.
"""
import os
import re
import sys

CALLS = re.compile(
    r'\b(?:(log_warn|log_error)\s*\(|(log_msg)\s*\(|(error_set)\s*\(|'
    r'(xasprintf)\s*\(|\berr\s*=\s*(xstrdup)\s*\()')
CONV = re.compile(r'%[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(?:hh|h|ll|l|z|j|t|L)?[diouxXeEfgGcspm]')


def strip_comments(text):
    """C comments blanked (newlines kept, for line numbers); strings kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r'[^\n]', ' ', text[i:j]))
            i = j
        elif text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        else:
            out.append(c)
            i += 1
    return ''.join(out)


def call_args(text, i):
    """The top-level arguments of the call whose '(' is just before i."""
    args, depth, start, n = [], 0, i, len(text)
    while i < n:
        c = text[i]
        if c == '"' or c == "'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == '\\' else 1
            i = j + 1
            continue
        if c in '([{':
            depth += 1
        elif c in ')]}':
            if depth == 0:
                args.append(text[start:i].strip())
                return args
            depth -= 1
        elif c == ',' and depth == 0:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    return args


def c_literal(arg):
    """The C string of an argument made of string literals only, else None."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', arg)
    if not parts or re.sub(r'"((?:[^"\\]|\\.)*)"', '', arg).strip():
        return None
    s = ''.join(parts)
    return re.sub(r'\\(.)', lambda m: {'n': ' ', 't': ' '}.get(m.group(1), m.group(1)), s)


def placeholder(expr):
    """A readable name for the value of a conversion: r->id -> ID."""
    words = re.findall(r'[A-Za-z_][A-Za-z0-9_]*', expr)
    skip = {'r', 'c', 'st', 'cfg', 'e', 'cnirt_error_msg', 'json_type_name', 'strerror',
            'error_shown', 'error_shown_whole', 'x', 'p', 's', 'v', 'const', 'char'}
    words = [w for w in words if w not in skip] or words or ['VALUE']
    name = words[-1]
    if name == 'errno' or name == 'errnum':
        name = 'ERROR'
    return name.upper().strip('_') or 'VALUE'


def messages(srcdir):
    found = []
    for root, _, files in os.walk(os.path.join(srcdir, 'hook')):
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            path = os.path.join(root, f)
            with open(path, encoding='utf-8') as fh:
                text = strip_comments(fh.read())
            for m in CALLS.finditer(text):
                args = call_args(text, m.end())
                if m.group(1):
                    fmt_i = 0
                elif m.group(2):
                    if not args or not re.search(r'WARN|ERROR', args[0]):
                        continue
                    fmt_i = 1
                elif m.group(3):
                    fmt_i = 1
                else:
                    fmt_i = 0
                if len(args) <= fmt_i:
                    continue
                fmt = c_literal(args[fmt_i])
                if fmt is None:
                    continue
                fmt = ' '.join(fmt.split())
                const = CONV.sub('', fmt.replace('%%', '%'))
                if ' ' not in const.strip() or len(re.findall(r'\b[a-z]{2,}\b', const)) < 2:
                    continue
                line = text.count('\n', 0, m.start()) + 1
                rel = os.path.relpath(path, srcdir)
                found.append((rel, line, fmt, args[fmt_i + 1:]))
    found.sort()
    return found


def pattern(fmt):
    pieces = CONV.split(fmt)
    return re.compile('.*?'.join(re.escape(p.replace('%%', '%')) for p in pieces), re.S)


def roff_text(line):
    line = re.sub(r'\\f(?:[BIRP]|\[[A-Z]*\])', '', line)
    line = line.replace('\\(dq', '"').replace('\\-', '-').replace('\\&', '')
    line = line.replace('\\e', '\\').replace('\\(aq', "'").replace('\\ ', ' ')
    return ' '.join(line.split())


def entries(page):
    """The lines after a .TP or .TQ in the page's MESSAGES section."""
    out, in_section, after_tp = [], False, False
    with open(page, encoding='utf-8') as fh:
        for raw in fh:
            raw = raw.rstrip('\n')
            if raw.startswith('.SH'):
                in_section = 'MESSAGES' in raw
                continue
            if not in_section:
                continue
            if raw.startswith('.TP') or raw.startswith('.TQ'):
                after_tp = True
                continue
            if after_tp and not raw.startswith('.\\"'):
                out.append(roff_text(raw))
                after_tp = False
    return out


def to_roff(fmt, args):
    it = iter(args)
    text = CONV.sub(lambda m: placeholder(next(it, 'VALUE')), fmt.replace('%%', '%'))
    text = text.replace('\\', '\\e').replace('-', '\\-')
    if text[:1] in ".'":
        text = '\\&' + text
    return '.TP\n\\fB' + text + '\\fR\n' + 'CAUSE. FIX.'


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ('check', 'missing', 'list'):
        sys.stderr.write(__doc__)
        return 2
    srcdir = sys.argv[2]
    found = messages(srcdir)
    if sys.argv[1] == 'list':
        for rel, line, fmt, _ in found:
            print(f'{rel}:{line}: {fmt}')
        return 0
    page = os.path.join(srcdir, 'docs', 'cnihook-troubleshooting.7.in')
    ents = entries(page)
    missing, seen = [], set()
    for rel, line, fmt, args in found:
        pat = pattern(fmt)
        if any(pat.fullmatch(e) for e in ents):
            continue
        if sys.argv[1] == 'check':
            print(f'{rel}:{line}: no entry in docs/cnihook-troubleshooting.7.in (MESSAGES) '
                  f'for the message "{fmt}"')
        elif fmt not in seen:
            print(f'.\\" {rel}:{line}\n' + to_roff(fmt, args))
        seen.add(fmt)
        missing.append(fmt)
    if sys.argv[1] == 'check':
        print(f'{len(found)} messages, {len(ents)} entries, {len(missing)} without one')
    return 1 if missing and sys.argv[1] == 'check' else 0


if __name__ == '__main__':
    sys.exit(main())
