// Functions: the list at /functions, a new function at /functions/+new, one function (code,
// invoke, live logs, settings) at /functions/<slug>.
import FunctionPage from './FunctionPage';
import FunctionsList from './FunctionsList';
import { FunctionEditor } from './FunctionEditor';
import { NEW_FUNCTION } from './types';

export default function FunctionsScreen({ rest }: { rest: string }) {
  if (!rest) return <FunctionsList />;
  if (rest === NEW_FUNCTION) return <FunctionEditor />;
  return <FunctionPage key={rest} slug={rest} />;
}
