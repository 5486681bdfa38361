vim9script
# :ClaudeCodeInstall: puts the bridge binary in place without Go. Downloads
# <base_url>/v<version>/claude-ide-bridge_<version>_<os>_<arch>.tar.gz and
# SHA256SUMS beside it, checks the archive's SHA-256 against its line there,
# unpacks it into a temporary directory, checks that the binary runs
# (`version`) and only then moves it into place. A checksum that does not
# match installs nothing and never falls back to building. When the release
# cannot be downloaded and `go` is on $PATH, the bridge is built from this
# checkout instead. Runs synchronously (a few seconds).

import autoload 'claude_ide_bridge.vim' as cib

# The plugin's version; test/vim checks it against lua/claude-ide-bridge/version.lua.
export const VERSION = '0.1.0'
const BASE = 'https://github.com/claude-ide-bridge/claude-ide-bridge/releases/download'
# The checkout's root (editors/vim/autoload/claude_ide_bridge/install.vim).
const ROOT = resolve(expand('<sfile>:p'))->fnamemodify(':h:h:h:h:h')

export var last: dict<string> = {}

def Run(argv: list<string>): list<any>
  var out = system(join(mapnew(argv, (_, a) => shellescape(a)), ' ') .. ' 2>&1')
  return [trim(out), v:shell_error == 0]
enddef

def Download(url: string, dest: string): list<any>
  if executable('curl')
    return Run(['curl', '-fsSL', '--retry', '2', '-o', dest, url])
  elseif executable('wget')
    return Run(['wget', '-q', '-O', dest, url])
  endif
  return ['neither curl nor wget is on $PATH', false]
enddef

export def Platform(): list<string>
  var os = get({Linux: 'linux', Darwin: 'darwin'}, trim(system('uname -s')), '')
  var arch = get({x86_64: 'amd64', amd64: 'amd64', aarch64: 'arm64', arm64: 'arm64'}, trim(system('uname -m')), '')
  return [os, arch]
enddef

# The SHA-256 of a file (Vim 9.0's sha256() takes no bytes with NULs).
export def Sha256File(path: string): string
  for t in [['sha256sum', path], ['shasum', '-a', '256', path]]
    if executable(t[0])
      var [out, ok] = Run(t)
      var hex = ok ? matchstr(tolower(out), '\<\x\{64}\>') : ''
      if hex != ''
        return hex
      endif
    endif
  endfor
  throw 'no way to compute SHA-256 (sha256sum, shasum)'
  return ''
enddef

# The digest SHA256SUMS gives for name, or ''.
export def ExpectedSum(sums: list<string>, name: string): string
  for l in sums
    var m = matchlist(l, '^\(\x\{64}\)\s\+\*\=\(\S\+\)\r\=$')
    if !empty(m) && m[2] == name
      return tolower(m[1])
    endif
  endfor
  return ''
enddef

def PutInPlace(src: string): string
  var dest = cib.InstallPath()
  setfperm(src, 'rwxr-xr-x')
  delete(dest)
  if rename(src, dest) != 0
    throw 'cannot move the binary into place at ' .. dest
  endif
  return dest
enddef

# [path, error, unreachable]
def FromRelease(version: string, base: string, tmp: string): list<any>
  var [os, arch] = Platform()
  if os == '' || arch == ''
    return ['', 'no release for this system', true]
  endif
  var name = printf('claude-ide-bridge_%s_%s_%s.tar.gz', version, os, arch)
  var url = printf('%s/v%s/', substitute(base, '/\+$', '', ''), version)
  var [out, ok] = Download(url .. 'SHA256SUMS', tmp .. '/SHA256SUMS')
  if !ok
    return ['', 'cannot download ' .. url .. 'SHA256SUMS: ' .. out, true]
  endif
  [out, ok] = Download(url .. name, tmp .. '/' .. name)
  if !ok
    return ['', 'cannot download ' .. url .. name .. ': ' .. out, true]
  endif
  var want = ExpectedSum(readfile(tmp .. '/SHA256SUMS'), name)
  if want == ''
    return ['', 'SHA256SUMS has no line for ' .. name, false]
  endif
  var got = Sha256File(tmp .. '/' .. name)
  if got != want
    return ['', printf('checksum mismatch for %s: SHA256SUMS says %s, the download is %s; nothing installed', name, want, got), false]
  endif
  mkdir(tmp .. '/unpack', 'p')
  [out, ok] = Run(['tar', '-xf', tmp .. '/' .. name, '-C', tmp .. '/unpack'])
  if !ok
    return ['', 'cannot unpack ' .. name .. ': ' .. out, false]
  endif
  var bin = tmp .. '/unpack/claude-ide-bridge'
  setfperm(bin, 'rwxr-xr-x')
  [out, ok] = Run([bin, 'version'])
  if !ok || out !~ 'claude-ide-bridge'
    return ['', 'the downloaded bridge does not run', false]
  endif
  return [PutInPlace(bin), '', false]
enddef

def FromSource(tmp: string): list<any>
  if !filereadable(ROOT .. '/go.mod')
    return ['', 'no Go sources in ' .. ROOT]
  endif
  var bin = tmp .. '/claude-ide-bridge'
  var [out, ok] = Run(['sh', '-c', 'cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$2" -o "$3" ./cmd/claude-ide-bridge',
    'sh', ROOT, VERSION, bin])
  if !ok
    return ['', 'go build failed: ' .. out]
  endif
  return [PutInPlace(bin), '']
enddef

export def Install(): string
  var dir = fnamemodify(cib.InstallPath(), ':h')
  mkdir(dir, 'p')
  var tmp = printf('%s/.install-%d-%d', dir, getpid(), localtime())
  mkdir(tmp, 'p')
  cib.Notify('installing the bridge ' .. VERSION .. '...')
  var path = ''
  var err = ''
  try
    var unreachable = false
    [path, err, unreachable] = FromRelease(VERSION, cib.Opt('install_base_url', BASE), tmp)
    if path == '' && unreachable && executable('go')
      var why = err
      [path, err] = FromSource(tmp)
      if path != ''
        cib.Notify('no release reachable (' .. why .. '); built from source with Go')
      else
        err = why .. '; ' .. err
      endif
    endif
  catch
    err = v:exception
  finally
    delete(tmp, 'rf')
  endtry
  last = {path: path, err: err}
  if path == ''
    cib.Notify('install failed: ' .. err, 'error')
  else
    cib.Notify('installed ' .. path)
  endif
  return path
enddef
