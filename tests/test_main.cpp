// The main of every Boost.Test suite (each suite defines BOOST_TEST_MODULE, hence init_unit_test;
// tests/CMakeLists.txt builds it with BOOST_TEST_NO_MAIN). Boost.Test's own main would end a run
// whose model files were absent with success, and CTest would count the cases that could not run
// as passed; here such a run, when nothing failed, ends with CTest's skip code and the paths.
#include <iostream>

#include <boost/test/unit_test.hpp>

#include "shared_dir.hpp"

bool init_unit_test();

int main(int argc, char* argv[])
{
    const int status = boost::unit_test::unit_test_main(&init_unit_test, argc, argv);
    const auto& absent = qkov::test::absent_shared_paths();
    if (status != 0 || absent.empty()) return status;
    std::cout << "SKIPPED: " << absent.size() << " shared paths absent (listed above): the cases that read them returned before their checks"
              << std::endl;
    return qkov::test::skipped_exit_code;
}
