// Checks what the container files promise and a linter cannot know: the compose file's services,
// health checks and start order, the Dockerfile's stages, user, entry point and health check, and
// that the Dockerfile and docker/build-rootfs install one package list. Run by tests/docker/lint.sh:
//
//   node check_container_files.mjs REPO_ROOT     prints each problem, exits 1 when there is one
//   node check_container_files.mjs --self-test   the checks against broken copies must each fail
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const readText = (root, rel) => fs.readFileSync(path.join(root, rel), 'utf8');

// The README's configuration table names MEDIAGEN_PUSHER_APP_ID, `_KEY`, `_SECRET` in one row.
function documented(readme, name) {
  const pusher = name.match(/^MEDIAGEN_PUSHER_APP(_[A-Z]+)$/);
  return readme.includes('`' + name + '`') || (pusher && readme.includes('`MEDIAGEN_PUSHER_APP_ID`, ') &&
    readme.includes('`' + pusher[1] + '`'));
}

function load(root) {
  return {
    compose: parse(readText(root, 'docker/compose.yaml'), { merge: true }),
    dockerfile: readText(root, 'docker/Dockerfile'),
    rootfs: readText(root, 'docker/build-rootfs'),
    packages: readText(root, 'docker/runtime-packages.txt'),
    readme: readText(root, 'README.md'),
  };
}

function checkCompose(compose, readme, problems) {
  const services = compose.services ?? {};
  for (const name of ['mediagen', 'migrate', 'postgres', 'redis']) {
    if (!services[name]) problems.push(`compose: no service "${name}"`);
  }
  const { mediagen = {}, migrate = {}, postgres = {}, redis = {} } = services;
  if (!/^postgres:\d+$/.test(postgres.image ?? '')) problems.push('compose: postgres is not pinned by major version');
  if (!/^redis:\d+$/.test(redis.image ?? '')) problems.push('compose: redis is not pinned by major version');
  const test = (s) => [].concat(s.healthcheck?.test ?? []).join(' ');
  if (!test(postgres).includes('pg_isready')) problems.push('compose: postgres has no pg_isready health check');
  if (!test(redis).includes('redis-cli ping')) problems.push('compose: redis has no redis-cli ping health check');
  if (!test(mediagen).includes('/readyz')) problems.push('compose: mediagen has no /readyz health check');
  const dep = mediagen.depends_on ?? {};
  if (dep.postgres?.condition !== 'service_healthy') problems.push('compose: mediagen does not wait for a healthy postgres');
  if (dep.redis?.condition !== 'service_healthy') problems.push('compose: mediagen does not wait for a healthy redis');
  if (dep.migrate?.condition !== 'service_completed_successfully') problems.push('compose: mediagen starts before migrate has succeeded');
  if (migrate.depends_on?.postgres?.condition !== 'service_healthy') problems.push('compose: migrate does not wait for a healthy postgres');
  if (JSON.stringify(migrate.command) !== '["migrate"]') problems.push('compose: migrate does not run `mediagen migrate`');
  if ((mediagen.command ?? [])[0] !== 'serve') problems.push('compose: mediagen does not run `mediagen serve`');
  if (mediagen.image !== migrate.image) problems.push('compose: migrate and mediagen run different images');
  const volumes = (s) => (s.volumes ?? []).map((v) => String(v).split(':')[0]);
  if (!volumes(postgres).some((v) => compose.volumes && v in compose.volumes)) problems.push('compose: PostgreSQL data is not on a named volume');
  if (!volumes(mediagen).some((v) => compose.volumes && v in compose.volumes)) problems.push('compose: the object store is not on a named volume');
  for (const s of [mediagen, migrate]) {
    for (const [name, value] of Object.entries(s.environment ?? {})) {
      if (!documented(readme, name)) problems.push(`compose: ${name} is not a documented configuration name`);
      if (/SECRET|PASSWORD/.test(name) && !/^\$\{/.test(String(value))) problems.push(`compose: ${name} is written in the file, not taken from docker/.env`);
    }
    if (!/\$\{POSTGRES_PASSWORD/.test(String(s.environment?.MEDIAGEN_DATABASE_URL))) problems.push('compose: the database password is written in the file');
  }
}

function stages(dockerfile) {
  return dockerfile.split(/^FROM /m).slice(1).map((s) => 'FROM ' + s);
}

function checkDockerfile(dockerfile, readme, problems) {
  const [build, runtime, ...more] = stages(dockerfile);
  if (!build || !runtime || more.length) return problems.push('Dockerfile: not exactly two stages (build, runtime)');
  for (const s of [build, runtime]) {
    if (!/^FROM debian:(bookworm-slim|bookworm|12|12-slim)( |$)/m.test(s)) problems.push('Dockerfile: a stage is not on Debian 12');
  }
  if (!/package_list build/.test(build)) problems.push("Dockerfile: the build stage does not install install.sh's build list");
  if (!/-DCMAKE_BUILD_TYPE=Release/.test(build) || !/--target mediagen/.test(build)) problems.push('Dockerfile: the build stage is not a Release build of mediagen');
  if (!/COPY docker\/runtime-packages\.txt/.test(runtime) || !/runtime-packages\.txt\)/.test(runtime)) problems.push('Dockerfile: the runtime stage does not install docker/runtime-packages.txt');
  if (/-dev\b/.test(runtime)) problems.push('Dockerfile: the runtime stage installs a -dev package');
  const user = (runtime.match(/^USER (\S+)/m) ?? [])[1];
  if (!user || user === 'root' || user === '0') problems.push('Dockerfile: the runtime stage runs as root');
  if (!/^ENTRYPOINT \["mediagen"\]$/m.test(runtime)) problems.push('Dockerfile: ENTRYPOINT is not ["mediagen"]');
  if (!/^CMD \["serve"\]$/m.test(runtime)) problems.push('Dockerfile: CMD is not ["serve"]');
  const admin = (runtime.match(/MEDIAGEN_ADMIN_LISTEN=0\.0\.0\.0:(\d+)/) ?? [])[1];
  const listen = (runtime.match(/MEDIAGEN_LISTEN=0\.0\.0\.0:(\d+)/) ?? [])[1];
  if (!admin || !listen) problems.push('Dockerfile: the listeners do not face the container network');
  const expose = ((runtime.match(/^EXPOSE (.+)$/m) ?? [])[1] ?? '').split(/\s+/);
  if (!expose.includes(listen) || !expose.includes(admin)) problems.push('Dockerfile: EXPOSE does not name both listener ports');
  if (!new RegExp(`HEALTHCHECK[^]*127\\.0\\.0\\.1:${admin}/readyz`).test(runtime)) problems.push("Dockerfile: HEALTHCHECK does not ask /readyz on the operator listener's port");
  for (const name of runtime.match(/MEDIAGEN_[A-Z_]+/g) ?? []) {
    if (!documented(readme, name)) problems.push(`Dockerfile: ${name} is not a documented configuration name`);
  }
}

function checkOneList(dockerfile, rootfs, packages, problems) {
  const list = packages.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'));
  if (list.length === 0) problems.push('runtime-packages.txt lists no package');
  if (list.some((p) => !/^[a-z0-9][a-z0-9+.-]+$/.test(p))) problems.push('runtime-packages.txt: a line is not one package name');
  if (!/grep -v '\^#' docker\/runtime-packages\.txt/.test(rootfs)) problems.push('build-rootfs does not install docker/runtime-packages.txt');
  if (/--include="(?!\$packages")/.test(rootfs)) problems.push('build-rootfs installs a package of its own, beside the shared list');
  // Nothing installed by name beside the list: every apt-get install of the runtime stage reads it.
  const runtime = stages(dockerfile)[1] ?? '';
  for (const line of runtime.match(/apt-get install[^\n]*/g) ?? []) {
    if (!line.includes('runtime-packages.txt')) problems.push('Dockerfile: the runtime stage installs packages beside the shared list');
  }
  const uid = (s) => (s.match(/useradd[^\n]*--uid (\d+)/) ?? [])[1];
  if (!uid(runtime) || uid(runtime) !== uid(rootfs)) problems.push('the Dockerfile and build-rootfs give the user different uids');
}

function check(files) {
  const problems = [];
  checkCompose(files.compose, files.readme, problems);
  checkDockerfile(files.dockerfile, files.readme, problems);
  checkOneList(files.dockerfile, files.rootfs, files.packages, problems);
  return problems;
}

function selfTest(root) {
  // Each broken copy must be reported: the checks can fail.
  const breakages = {
    'no redis health check': (f) => { delete f.compose.services.redis.healthcheck; },
    'serve before migrate': (f) => { delete f.compose.services.mediagen.depends_on.migrate; },
    'unpinned postgres': (f) => { f.compose.services.postgres.image = 'postgres:latest'; },
    'a secret in the file': (f) => { f.compose.services.mediagen.environment.MEDIAGEN_SECRET = 'hunter2'; },
    'root runtime': (f) => { f.dockerfile = f.dockerfile.replace(/^USER .*$/m, 'USER root'); },
    'health check elsewhere': (f) => { f.dockerfile = f.dockerfile.replaceAll('/readyz', '/healthz'); },
    'a second list': (f) => { f.dockerfile = f.dockerfile.replace('$(grep -v', 'libfoo1 $(grep -v').replace(/(RUN apt-get update[^\n]*\n)/g, '$1 && apt-get install -y curl \\\n'); },
    'rootfs list of its own': (f) => { f.rootfs = f.rootfs.replace("grep -v '^#' docker/runtime-packages.txt", 'echo libfoo1'); },
    'other uid': (f) => { f.rootfs = f.rootfs.replace('--uid 10001', '--uid 1000'); },
  };
  const failures = [];
  if (check(load(root)).length) failures.push('the files as committed do not pass');
  for (const [name, breakIt] of Object.entries(breakages)) {
    const files = load(root);
    breakIt(files);
    if (check(files).length === 0) failures.push(`not caught: ${name}`);
  }
  return failures;
}

const arg = process.argv[2] ?? '.';
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const problems = arg === '--self-test' ? selfTest(root) : check(load(path.resolve(arg)));
for (const p of problems) console.log(p);
console.log(problems.length ? `${problems.length} problems` : 'container files: ok');
process.exit(problems.length ? 1 : 0);
