// Body validators compiled on a route's first request instead of at start-up: the store has a few hundred
// write routes, and compiling all of their schemas up front took seconds on every start, though a process
// usually writes to a handful of resources.
import { AjvCompiler } from '@fastify/ajv-compiler';

type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type CompileRoute = (route: never) => Validate;
type BuildValidator = (externalSchemas: never, options: never) => CompileRoute;

export function lazyValidators(): ReturnType<typeof AjvCompiler> {
  const build = AjvCompiler() as unknown as BuildValidator;
  const lazy: BuildValidator = (externalSchemas, options) => {
    const compile = build(externalSchemas, options);
    return (route) => {
      let compiled: Validate | undefined;
      const validate: Validate = (data) => {
        compiled ??= compile(route);
        const result = compiled(data);
        // Fastify reads the problems from the function it was given.
        validate.errors = compiled.errors;
        return result;
      };
      return validate;
    };
  };
  return lazy as unknown as ReturnType<typeof AjvCompiler>;
}
