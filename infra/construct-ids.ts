/**
 * Construct ids from the names the tables of routes, workers and queues use. Its own module: the
 * functions, the queues and the monitoring all name constructs this way, and none of them should
 * import another for it.
 */

/** `list-keys` -> `ListKeys`: stable construct ids (and so stable logical ids) per function. */
export function pascalCase(name: string): string {
  return name.replace(/(^|[-_])([a-z0-9])/g, (_, _separator: string, letter: string) => letter.toUpperCase());
}
